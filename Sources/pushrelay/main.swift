import ArgumentParser
import Foundation
import PushRelay

struct PushRelayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pushrelay",
        abstract: "HTTP long-poll push relay: devices register and long-poll, senders use an FCM HTTP v1-compatible API.",
        discussion: "Defaults come from \(RelayConfig.defaultConfigPath) when it exists; flags override it.")

    @Option(help: ArgumentHelp("Address to listen on; port 0 picks a free port.", valueName: "host:port"))
    var listen: String?

    @Option(name: .customLong("state-dir"), help: ArgumentHelp("Directory for relay.sqlite (created 0700).", valueName: "dir"))
    var stateDir: String?

    @Option(help: ArgumentHelp(
        "Where the state is: sqlite:DIR (the same as --state-dir DIR), or postgres://USER@HOST[:PORT]/DB[?sslmode=…] shared by several relay instances; no password here.",
        valueName: "url"))
    var database: String?

    @Option(name: .customLong("database-password-file"), help: ArgumentHelp(
        "File holding the PostgreSQL password (else $CREDENTIALS_DIRECTORY/\(RelayDatabaseSetting.credentialName), or password_file in the config).",
        valueName: "file"))
    var databasePasswordFile: String?

    @Option(name: .customLong("sender-key"), help: ArgumentHelp("Sender API key for a project; repeatable.", valueName: "project=key"))
    var senderKeys: [String] = []

    @Option(name: .customLong("registration-key"), help: ArgumentHelp("Require this Bearer key to register devices.", valueName: "key"))
    var registrationKey: String?

    @Option(name: .customLong("service-account"), help: ArgumentHelp(
        "A service account's RSA public key (PEM) for a project: its RS256 assertions get access tokens from POST /token; repeatable.",
        valueName: "project=pem-file"))
    var serviceAccounts: [String] = []

    @Option(name: .customLong("public-url"), help: ArgumentHelp(
        "The relay's URL as senders reach it (behind a TLS proxy); <url>/token is then the only own token URL assertions may name.",
        valueName: "url"))
    var publicURL: String?

    @Option(name: .customLong("config"), help: ArgumentHelp("Config file (default \(RelayConfig.defaultConfigPath) if it exists).", valueName: "file"))
    var configFile: String?

    func validate() throws {
        if let listen, ListenAddress(parsing: listen) == nil {
            throw ValidationError("--listen: expected HOST:PORT (port 0-65535, IPv6 in brackets), got '\(listen)'")
        }
        if let stateDir, stateDir.isEmpty { throw ValidationError("--state-dir: must not be empty") }
        if stateDir != nil, database != nil {
            throw ValidationError("--state-dir and --database both name the relay's state: give one (--state-dir DIR is --database sqlite:DIR)")
        }
        if databasePasswordFile == "" { throw ValidationError("--database-password-file: must not be empty") }
        for key in senderKeys where SenderKey(parsing: key) == nil {
            throw ValidationError("--sender-key: expected PROJECT=KEY with both parts non-empty, got '\(key)'")
        }
        if registrationKey == "" { throw ValidationError("--registration-key: must not be empty") }
        for account in serviceAccounts where ServiceAccountKeyFile(parsing: account) == nil {
            throw ValidationError("--service-account: expected PROJECT=PUBLIC_KEY_PEM_FILE with both parts non-empty, got '\(account)'")
        }
        if let publicURL, !RelayConfig.isValidPublicURL(publicURL) {
            throw ValidationError("--public-url: expected an http or https URL without query, got '\(publicURL)'")
        }
    }

    func resolvedConfig() throws(RelayConfigError) -> RelayConfig {
        let workingDirectory = FileManager.default.currentDirectoryPath
        let fileName = configFile.map { absolute($0, relativeTo: workingDirectory) } ?? RelayConfig.defaultConfigPath
        var file: RelayFileConfig?
        if configFile != nil || FileManager.default.fileExists(atPath: fileName) {
            // Opening a directory succeeds; reading it then failed with Foundation's "NSCocoaErrorDomain error 256".
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: fileName, isDirectory: &isDirectory), isDirectory.boolValue {
                throw RelayConfigError("\(configFile == nil ? "" : "--config: ")\(fileName) is a directory: give the path of "
                                       + "a TOML file, e.g. --config \((fileName as NSString).appendingPathComponent("pushrelay.toml"))")
            }
            // FileHandle rather than String(contentsOfFile:), which refuses /dev/null (a way to skip the default file).
            guard let handle = FileHandle(forReadingAtPath: fileName), let data = try? handle.readToEnd() ?? Data() else {
                throw RelayConfigError("\(configFile == nil ? "" : "--config: ")cannot read \(fileName)")
            }
            var parsed = try RelayFileConfig.parse(String(decoding: data, as: UTF8.self), fileName: fileName)
            // Taken from the file's directory, as its service-account files are: the directory the relay happens to
            // start in (/ for a service) is no place for its state.
            let fileDirectory = (fileName as NSString).deletingLastPathComponent
            parsed.stateDirectory = parsed.stateDirectory.map { absolute($0, relativeTo: fileDirectory) }
            parsed.database = parsed.database.map { absolute($0, relativeTo: fileDirectory) }
            if let databasePasswordFile {
                parsed.database?.passwordFile = absolute(databasePasswordFile, relativeTo: workingDirectory)
            }
            file = parsed
        }
        return try RelayConfig.resolve(
            listen: listen.flatMap(ListenAddress.init(parsing:)),
            stateDirectory: stateDir.map { absolute($0, relativeTo: workingDirectory) },
            database: database.map {
                absolute(RelayDatabaseSetting(url: $0, passwordFile: databasePasswordFile), relativeTo: workingDirectory)
            },
            senderKeys: senderKeys.compactMap(SenderKey.init(parsing:)), registrationKey: registrationKey,
            serviceAccounts: serviceAccounts.compactMap(ServiceAccountKeyFile.init(parsing:)), publicURL: publicURL,
            file: file, fileName: fileName)
    }
}

/// `path` made absolute: logs and errors then name the real place.
private func absolute(_ path: String, relativeTo directory: String) -> String {
    URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: directory, isDirectory: true)).standardizedFileURL.path
}

/// A `sqlite:` directory and the password file made absolute, like `--state-dir`.
private func absolute(_ setting: RelayDatabaseSetting, relativeTo directory: String) -> RelayDatabaseSetting {
    var setting = setting
    if setting.url.hasPrefix("sqlite:"), case let path = String(setting.url.dropFirst("sqlite:".count)), !path.isEmpty {
        setting.url = "sqlite:" + absolute(path, relativeTo: directory)
    }
    setting.passwordFile = setting.passwordFile.map { absolute($0, relativeTo: directory) }
    return setting
}

func fail(_ message: String, exitCode: Int32) -> Never {
    FileHandle.standardError.write(Data("pushrelay: \(message)\n".utf8))
    exit(exitCode)
}

// Parsed by hand rather than with `main()`: the project's contract is exit status 2 for a bad flag or value,
// where ArgumentParser would use 64.
let command: PushRelayCommand
do {
    command = try PushRelayCommand.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    if PushRelayCommand.exitCode(for: error) == .success {
        print(PushRelayCommand.fullMessage(for: error))
        exit(0)
    }
    FileHandle.standardError.write(Data((PushRelayCommand.fullMessage(for: error) + "\n").utf8))
    exit(2)
}

let config: RelayConfig
do {
    config = try command.resolvedConfig()
} catch {
    fail(error.description, exitCode: 2)
}

RelayServer.bootstrapLogging()
do {
    let server = try await RelayServer(config: config, ownsProcess: true) { address in
        // Tests and harnesses wait for exactly this line to learn the port; FileHandle writes unbuffered.
        FileHandle.standardOutput.write(Data("pushrelay listening on http://\(address)\n".utf8))
    }
    try await server.run()
} catch {
    fail("\(error)", exitCode: 1)
}
