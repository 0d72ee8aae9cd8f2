import Foundation

/// Where the relay keeps its state: one process's SQLite file (the default), or a PostgreSQL database that several
/// relay instances share.
public enum RelayDatabase: Sendable, Equatable, CustomStringConvertible {
    /// The directory that holds `relay.sqlite` (`--state-dir`, or `--database sqlite:DIR`).
    case sqlite(directory: String)
    case postgres(PostgresSettings)

    public var description: String {
        switch self {
        case .sqlite(let directory): "sqlite:\(directory)"
        case .postgres(let settings): settings.description
        }
    }
}

/// The database as a flag or the config file names it, before its password is read.
public struct RelayDatabaseSetting: Sendable, Equatable {
    /// `sqlite:DIR`, or `postgres://USER@HOST[:PORT]/DB[?sslmode=…]` (`postgresql://` too).
    public var url: String
    public var passwordFile: String?

    public init(url: String, passwordFile: String? = nil) {
        self.url = url
        self.passwordFile = passwordFile
    }

    /// Under systemd, `LoadCredential=pushrelay-database-password:/etc/…` puts the password here.
    public static let credentialName = "pushrelay-database-password"

    /// - Parameters:
    ///   - origin: names the setting in errors (`--database`, `` `database` in FILE ``).
    ///   - passwordInURLAllowed: false for a URL from the command line, which every local user can read.
    ///   - environment: for `$CREDENTIALS_DIRECTORY`.
    public func resolve(origin: String, passwordInURLAllowed: Bool,
                        environment: [String: String] = ProcessInfo.processInfo.environment) throws(RelayConfigError) -> RelayDatabase {
        if url.hasPrefix("sqlite:") {
            let directory = String(url.dropFirst("sqlite:".count))
            guard !directory.isEmpty else { throw RelayConfigError("\(origin): `sqlite:` needs a directory, as in sqlite:/var/lib/pushrelay") }
            return .sqlite(directory: directory)
        }
        var settings = try PostgresSettings(parsing: url, origin: origin)
        if settings.password != nil, !passwordInURLAllowed {
            throw RelayConfigError("\(origin): the URL holds a password, which the command line shows to every local user; put the password in a file and name it with --database-password-file or `password_file` under [database] in the config file (or systemd's LoadCredential=\(Self.credentialName):FILE)")
        }
        if let password = try Self.readPassword(passwordFile: passwordFile, environment: environment) {
            settings.password = password
        }
        return .postgres(settings)
    }

    /// The named file wins over the systemd credential; either wins over a password in the URL.
    private static func readPassword(passwordFile: String?, environment: [String: String]) throws(RelayConfigError) -> String? {
        let path: String
        if let passwordFile {
            path = passwordFile
        } else if let credentials = environment["CREDENTIALS_DIRECTORY"],
                  case let candidate = (credentials as NSString).appendingPathComponent(credentialName),
                  FileManager.default.fileExists(atPath: candidate) {
            path = candidate
        } else {
            return nil
        }
        guard let handle = FileHandle(forReadingAtPath: path), let data = try? handle.readToEnd() ?? Data() else {
            throw RelayConfigError("cannot read the database password file \(path)")
        }
        // Files written by `echo` end in a newline that is no part of the password.
        let password = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .newlines)
        guard !password.isEmpty else { throw RelayConfigError("the database password file \(path) is empty") }
        return password
    }
}
