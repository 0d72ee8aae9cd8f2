import TOMLKit

/// Where the relay listens: `HOST:PORT`, with IPv6 hosts in brackets (`[::1]:8080`). Port 0 picks a free port.
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

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

    /// The host as it appears in a URL.
    var urlHost: String { host.contains(":") ? "[\(host)]" : host }

    public var description: String { "\(urlHost):\(port)" }
}

/// A static sender credential: `Authorization: Bearer <key>` may send to `project`.
public struct SenderKey: Sendable, Equatable {
    public var project: String
    public var key: String

    public init(project: String, key: String) {
        self.project = project
        self.key = key
    }

    /// Parses the `PROJECT=KEY` form of `--sender-key`.
    public init?(parsing text: String) {
        guard let eq = text.firstIndex(of: "=") else { return nil }
        let project = String(text[..<eq]), key = String(text[text.index(after: eq)...])
        guard !project.isEmpty, !key.isEmpty, !project.contains("/") else { return nil }
        self.init(project: project, key: key)
    }
}

public struct RelayConfigError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Everything the relay needs to run. Built from flags over the optional config file (`resolve`).
public struct RelayConfig: Sendable {
    public static let defaultConfigPath = "/etc/pushagent/pushrelay.toml"

    public var listen: ListenAddress
    /// Holds `relay.sqlite`; created 0700 if missing.
    public var stateDirectory: String
    public var senderKeys: [SenderKey]
    /// When set, `POST /v1/devices` requires it as a Bearer token.
    public var registrationKey: String?

    public init(listen: ListenAddress, stateDirectory: String, senderKeys: [SenderKey] = [], registrationKey: String? = nil) {
        self.listen = listen
        self.stateDirectory = stateDirectory
        self.senderKeys = senderKeys
        self.registrationKey = registrationKey
    }

    /// Flags win over the file. Sender keys are overridden per project: a project named by a flag takes
    /// only the flags' keys, other projects keep the file's.
    public static func resolve(
        listen: ListenAddress?, stateDirectory: String?, senderKeys: [SenderKey], registrationKey: String?,
        file: RelayFileConfig?, fileName: String
    ) throws(RelayConfigError) -> RelayConfig {
        guard let listen = listen ?? file?.listen else {
            throw RelayConfigError("missing --listen HOST:PORT (or `listen` in \(fileName))")
        }
        guard let stateDirectory = stateDirectory ?? file?.stateDirectory else {
            throw RelayConfigError("missing --state-dir DIR (or `state_dir` in \(fileName))")
        }
        let flagProjects = Set(senderKeys.map(\.project))
        let keptFromFile = (file?.senderKeys ?? []).filter { !flagProjects.contains($0.project) }
        return RelayConfig(
            listen: listen, stateDirectory: stateDirectory, senderKeys: keptFromFile + senderKeys,
            registrationKey: registrationKey ?? file?.registrationKey)
    }
}

/// The TOML config file: `listen`, `state_dir`, `registration_key`, and `[sender_keys] project = "key"`
/// (or a list of keys, for rotation). Unknown keys are errors so that typos do not pass silently.
public struct RelayFileConfig: Sendable, Equatable {
    public var listen: ListenAddress?
    public var stateDirectory: String?
    public var registrationKey: String?
    public var senderKeys: [SenderKey] = []

    public init(listen: ListenAddress? = nil, stateDirectory: String? = nil, registrationKey: String? = nil, senderKeys: [SenderKey] = []) {
        self.listen = listen
        self.stateDirectory = stateDirectory
        self.registrationKey = registrationKey
        self.senderKeys = senderKeys
    }

    public static func parse(_ text: String, fileName: String) throws(RelayConfigError) -> RelayFileConfig {
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw RelayConfigError("\(fileName):\(error.source.begin.line): \(error.description)")
        } catch {
            throw RelayConfigError("\(fileName): \(error)")
        }
        var config = RelayFileConfig()
        for key in table.keys {
            let value = table[key]
            switch key {
            case "listen":
                guard let text = value?.string else { throw RelayConfigError("\(fileName): `listen` must be a string") }
                guard let address = ListenAddress(parsing: text) else {
                    throw RelayConfigError("\(fileName): `listen` must be HOST:PORT, got \"\(text)\"")
                }
                config.listen = address
            case "state_dir":
                guard let text = value?.string, !text.isEmpty else {
                    throw RelayConfigError("\(fileName): `state_dir` must be a non-empty string")
                }
                config.stateDirectory = text
            case "registration_key":
                guard let text = value?.string, !text.isEmpty else {
                    throw RelayConfigError("\(fileName): `registration_key` must be a non-empty string")
                }
                config.registrationKey = text
            case "sender_keys":
                guard let projects = value?.table else {
                    throw RelayConfigError("\(fileName): `sender_keys` must be a table of project = \"key\"")
                }
                for project in projects.keys.sorted() {
                    config.senderKeys += try senderKeys(project: project, value: projects[project], fileName: fileName)
                }
            default:
                throw RelayConfigError("\(fileName): unknown key `\(key)`")
            }
        }
        return config
    }

    private static func senderKeys(project: String, value: (any TOMLValueConvertible)?, fileName: String) throws(RelayConfigError) -> [SenderKey] {
        let keys: [String]
        if let single = value?.string {
            keys = [single]
        } else if let list = value?.array, case let strings = list.compactMap(\.string), strings.count == list.count {
            keys = strings
        } else {
            throw RelayConfigError("\(fileName): `sender_keys.\(project)` must be a string or a list of strings")
        }
        guard !project.contains("/"), !keys.isEmpty, !keys.contains("") else {
            throw RelayConfigError("\(fileName): `sender_keys.\(project)` needs a project without `/` and non-empty keys")
        }
        return keys.map { SenderKey(project: project, key: $0) }
    }
}
