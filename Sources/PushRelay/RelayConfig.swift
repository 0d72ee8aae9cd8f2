import Foundation

/// Where the relay listens: `HOST:PORT`, with IPv6 hosts in brackets (`[::1]:8080`). Port 0 picks a free port.
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int

    /// The host as it appears in a URL.
    var urlHost: String { host.contains(":") ? "[\(host)]" : host }

    public var description: String { "\(urlHost):\(port)" }
}

// The parsers stand in extensions, so that Swift still writes the memberwise initialisers the relay (and its tests) use.
extension ListenAddress {
    /// Returns nil for anything that is not `HOST:PORT` with a port in 0...65535.
    public init?(parsing text: String) {
        guard let colon = text.lastIndex(of: ":"),
              let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port)
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
        } else if host.contains(":") {
            return nil  // an unbracketed IPv6 address is ambiguous
        }
        guard !host.isEmpty else { return nil }
        self.init(host: host, port: port)
    }
}

/// A static sender credential: `Authorization: Bearer <key>` may send to `project`.
public struct SenderKey: Sendable, Equatable {
    public var project: String
    public var key: String
}

extension SenderKey {
    /// Parses the `PROJECT=KEY` form of `--sender-key`.
    public init?(parsing text: String) {
        guard let (project, key) = projectAssignment(text) else { return nil }
        self.init(project: project, key: key)
    }
}

/// The `PROJECT=VALUE` of the per-project flags: both parts non-empty, and no `/` in the project (it is a path
/// segment of the send URL). The value may contain `=`.
func projectAssignment(_ text: String) -> (project: String, value: String)? {
    guard let eq = text.firstIndex(of: "=") else { return nil }
    let project = String(text[..<eq]), value = String(text[text.index(after: eq)...])
    guard !project.isEmpty, !value.isEmpty, !project.contains("/") else { return nil }
    return (project, value)
}

public struct RelayConfigError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Everything the relay needs to run. Built from flags over the optional config file (`resolve`).
public struct RelayConfig: Sendable {
    public static let defaultConfigPath = "/etc/pushagent/pushrelay.toml"

    public var listen: ListenAddress
    /// SQLite in a state directory (created 0700 if missing), or PostgreSQL shared by several instances.
    public var database: RelayDatabase
    public var senderKeys: [SenderKey] = []
    /// When set, `POST /v1/devices` requires it as a Bearer token.
    public var registrationKey: String?
    /// Keys whose RS256 assertions `POST /token` exchanges for access tokens.
    public var serviceAccountKeys: [ServiceAccountKey] = []
    /// The relay's URL as senders reach it (behind a TLS proxy, say); `<publicURL>/token` is then an accepted `aud`.
    public var publicURL: String?
    /// Undelivered messages one device may have; one more is refused with `QUOTA_EXCEEDED`. MFA pushes are few, so a
    /// full queue means a device that stopped polling or a sender gone wrong; the bound keeps either off the disk.
    public var maximumQueuedPerDevice = defaultMaximumQueuedPerDevice

    public static let defaultMaximumQueuedPerDevice = 1000
    /// Connections open at once; nil for as many as the open-file limit leaves room for (`ConnectionSlots`).
    public var maxConnections: Int?
    /// How long a connection has to deliver a complete request, from opening or from its previous answer: idle
    /// keep-alive connections, trickled headers and stalled bodies are all cut off by it.
    public var requestTimeoutSeconds = defaultRequestTimeoutSeconds

    public static let defaultRequestTimeoutSeconds: Double = 30
    /// How fast Web Push messages may come, per subscription and per origin.
    public var webPushRateLimits = WebPushRateLimits()

    /// Flags win over the file. Sender keys and service accounts are overridden per project: a project named by
    /// a flag takes only the flags' entries, other projects keep the file's. Service-account keys are read and
    /// checked here, so a bad one stops the relay before it listens; a relative path in the file is taken from
    /// the file's directory.
    ///
    /// The database is `--database` (or `--state-dir`, the same as `--database sqlite:DIR`), else the file's
    /// `database` (or `state_dir`). A password may be in the file's URL but not in a flag's, which every local user
    /// can read; a password file (flag or file) or the systemd credential wins over either.
    public static func resolve(
        listen: ListenAddress?, stateDirectory: String?, database: RelayDatabaseSetting? = nil, senderKeys: [SenderKey],
        registrationKey: String?, serviceAccounts: [ServiceAccountKeyFile] = [], publicURL: String? = nil,
        file: RelayFileConfig?, fileName: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(RelayConfigError) -> RelayConfig {
        guard let listen = listen ?? file?.listen else {
            throw RelayConfigError("missing --listen HOST:PORT (or `listen` in \(fileName))")
        }
        let resolvedDatabase: RelayDatabase
        if let setting = database ?? stateDirectory.map({ RelayDatabaseSetting(url: "sqlite:" + $0) }) {
            var setting = setting
            setting.passwordFile = setting.passwordFile ?? file?.database?.passwordFile
            resolvedDatabase = try setting.resolve(origin: "--database", passwordInURLAllowed: false, environment: environment)
        } else if let setting = file?.database ?? file?.stateDirectory.map({ RelayDatabaseSetting(url: "sqlite:" + $0) }) {
            resolvedDatabase = try setting.resolve(origin: "`database` in \(fileName)", passwordInURLAllowed: true, environment: environment)
        } else {
            throw RelayConfigError("missing --state-dir DIR or --database URL (or `state_dir` or `database` in \(fileName))")
        }
        var keys: [ServiceAccountKey] = []
        for account in keptFromFile(file?.serviceAccounts ?? [], overriddenBy: serviceAccounts, project: \.project) {
            keys.append(try ServiceAccountKey.load(
                account, origin: "`service_accounts.\(account.project)` in \(fileName)",
                directory: (fileName as NSString).deletingLastPathComponent))
        }
        for account in serviceAccounts {
            keys.append(try ServiceAccountKey.load(account, origin: "--service-account \(account.project)"))
        }
        return RelayConfig(
            listen: listen, database: resolvedDatabase,
            senderKeys: keptFromFile(file?.senderKeys ?? [], overriddenBy: senderKeys, project: \.project) + senderKeys,
            registrationKey: registrationKey ?? file?.registrationKey, serviceAccountKeys: keys,
            publicURL: publicURL ?? file?.publicURL, maxConnections: file?.maxConnections,
            requestTimeoutSeconds: file?.requestTimeoutSeconds ?? defaultRequestTimeoutSeconds,
            webPushRateLimits: file?.webPushRateLimits ?? WebPushRateLimits())
    }

    /// An http or https URL with a host and without query or fragment: what `--public-url` and `public_url` take.
    public static func isValidPublicURL(_ text: String) -> Bool {
        RelayPublicBase.validated(text) != nil
    }

    /// The file's entries for projects that no flag names.
    private static func keptFromFile<Entry>(_ fromFile: [Entry], overriddenBy fromFlags: [Entry], project: KeyPath<Entry, String>) -> [Entry] {
        let flagProjects = Set(fromFlags.map { $0[keyPath: project] })
        return fromFile.filter { !flagProjects.contains($0[keyPath: project]) }
    }
}
