import Foundation
import Logging
import PostgresNIO

/// A PostgreSQL database from a libpq-style URL: `postgres://USER@HOST[:PORT]/DB?sslmode=…&sslrootcert=FILE`, or
/// `postgres://USER@/DB?host=/run/postgresql` for a Unix socket. Its description never shows the password.
public struct PostgresSettings: Sendable, Equatable, CustomStringConvertible {
    public enum TLSMode: String, Sendable, CaseIterable {
        /// `prefer` (libpq's default) and `require` encrypt without checking the server's certificate, as libpq
        /// does; `verify-full` checks it against the system's roots or `sslrootcert`.
        case disable, prefer, require, verifyFull = "verify-full"
    }

    public var host: String
    public var port: Int
    /// A directory holding the server's socket (`host=/run/postgresql`), instead of TCP.
    public var socketDirectory: String?
    public var user: String
    public var database: String
    public var tls: TLSMode
    public var rootCertificateFile: String?
    public var password: String?
    /// The most connections this instance's pool opens (`pool_max_conns`, as pgx names it); the wake-up listener
    /// takes one more. PostgreSQL's default `max_connections` of 100, less its 3 reserved for superusers, fits 8
    /// instances: 8 × (10 + 1) = 88 (docs/relay.md has the formula).
    public var poolSize = Self.defaultPoolSize
    public static let defaultPoolSize = 10
    /// How long a request's database work may take before the request is answered 503 (and a wake-up announcement
    /// before it is given up). Tests that share one PostgreSQL among many at once on a small machine raise it.
    public var operationTimeout = Self.defaultOperationTimeout
    public static let defaultOperationTimeout = StoreDeadline.operation

    init(parsing text: String, origin: String) throws(RelayConfigError) {
        let usage = "expected postgres://USER@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require|verify-full], or sqlite:DIR"
        guard let url = URLComponents(string: text), ["postgres", "postgresql"].contains(url.scheme ?? "") else {
            throw RelayConfigError("\(origin): \(usage)")
        }
        guard let user = url.user, !user.isEmpty else { throw RelayConfigError("\(origin): the URL names no user; \(usage)") }
        let database = String(url.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else {
            throw RelayConfigError("\(origin): the URL names no database; \(usage)")
        }
        self.user = user
        self.database = database
        password = url.password
        port = url.port ?? 5432
        host = url.host ?? ""
        tls = .prefer
        for item in url.queryItems ?? [] {
            let value = item.value ?? ""
            switch item.name {
            case "sslmode":
                guard let mode = TLSMode(rawValue: value) else {
                    throw RelayConfigError("\(origin): sslmode must be one of \(TLSMode.allCases.map(\.rawValue).joined(separator: ", ")), got \"\(value)\"")
                }
                tls = mode
            case "sslrootcert":
                rootCertificateFile = value
            case "host" where value.hasPrefix("/"):
                socketDirectory = value
            case "pool_max_conns":
                guard let size = Int(value), (1...1000).contains(size) else {
                    throw RelayConfigError("\(origin): pool_max_conns must be a number of connections in 1...1000, got \"\(value)\"")
                }
                poolSize = size
            default:
                throw RelayConfigError("\(origin): unknown URL parameter `\(item.name)` (known: sslmode, sslrootcert, host=/socket/dir, pool_max_conns)")
            }
        }
        guard !host.isEmpty || socketDirectory != nil else { throw RelayConfigError("\(origin): the URL names no host; \(usage)") }
    }

    /// The URL without its password, for logs and errors.
    public var description: String {
        var parameters: [String] = []
        if let socketDirectory { parameters.append("host=\(socketDirectory)") }
        if tls != .prefer { parameters.append("sslmode=\(tls.rawValue)") }
        if let rootCertificateFile { parameters.append("sslrootcert=\(rootCertificateFile)") }
        if poolSize != Self.defaultPoolSize { parameters.append("pool_max_conns=\(poolSize)") }
        let hostPort = socketDirectory == nil ? "\(host.contains(":") ? "[\(host)]" : host):\(port)" : ""
        return "postgres://\(user)@\(hostPort)/\(database)" + (parameters.isEmpty ? "" : "?" + parameters.joined(separator: "&"))
    }

    /// Where errors say the relay tried to connect.
    var endpoint: String {
        socketDirectory.map { "\($0)/.s.PGSQL.\(port)" } ?? "\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }

    private func tlsConfiguration() -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        if tls != .verifyFull { configuration.certificateVerification = .none }
        if let rootCertificateFile { configuration.trustRoots = .file(rootCertificateFile) }
        return configuration
    }

    /// The connection pool's configuration. Its sessions plan every statement generically, once: the relay's are
    /// key lookups whose best plan does not depend on the values, and PostgreSQL's default re-plans a PL/pgSQL
    /// function's statements on each call for as long as custom plans look cheaper (a fifth of the database's CPU
    /// on a send, measured under load).
    func clientConfiguration() -> PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        if let socketDirectory {
            configuration = .init(unixSocketPath: "\(socketDirectory)/.s.PGSQL.\(port)", username: user, password: password, database: database)
        } else {
            let tls: PostgresClient.Configuration.TLS = switch self.tls {
            case .disable: .disable
            case .prefer: .prefer(tlsConfiguration())
            case .require, .verifyFull: .require(tlsConfiguration())
            }
            configuration = .init(host: host, port: port, username: user, password: password, database: database, tls: tls)
        }
        configuration.options.maximumConnections = poolSize
        configuration.options.additionalStartupParameters = [("plan_cache_mode", "force_generic_plan")]
        return configuration
    }

    /// Opens one connection outside the pool (migrations, LISTEN); a failure says what to check.
    func connect(logger: Logger) async throws -> PostgresConnection {
        do {
            let configuration: PostgresConnection.Configuration
            if let socketDirectory {
                configuration = .init(
                    unixSocketPath: "\(socketDirectory)/.s.PGSQL.\(port)", username: user, password: password, database: database)
            } else {
                let tls: PostgresConnection.Configuration.TLS = switch self.tls {
                case .disable: .disable
                case .prefer: .prefer(try NIOSSLContext(configuration: tlsConfiguration()))
                case .require, .verifyFull: .require(try NIOSSLContext(configuration: tlsConfiguration()))
                }
                configuration = .init(host: host, port: port, username: user, password: password, database: database, tls: tls)
            }
            return try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
        } catch {
            throw PostgresUnavailable(settings: self, error: error)
        }
    }
}

/// A connection to PostgreSQL failed: says where to, as whom, why, and what to check.
struct PostgresUnavailable: Error, CustomStringConvertible {
    var settings: PostgresSettings
    var error: any Error

    var description: String {
        let target = "PostgreSQL at \(settings.endpoint) (user \(settings.user), database \(settings.database))"
        guard let error = error as? PSQLError else { return "cannot connect to \(target): \(error)" }
        let reason = PostgresErrorText(error).text
        let check: String
        switch error.serverInfo?[.sqlState] {
        case "28P01", "28000":
            check = "check the user and its password (password_file, or the \(RelayDatabaseSetting.credentialName) credential) and pg_hba.conf"
        case "3D000":
            check = "create the database (docs/relay.md, \"PostgreSQL: several instances\")"
        case .some:
            check = "check the server's log"
        case nil:
            check = error.code == .sslUnsupported
                ? "the server does not offer TLS: enable it there, or use sslmode=disable on a trusted network"
                : "check that the server runs and listens there (listen_addresses, port) and that no firewall is in between"
        }
        return "cannot connect to \(target): \(reason); \(check)"
    }
}
