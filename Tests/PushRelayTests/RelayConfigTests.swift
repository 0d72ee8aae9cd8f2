import Foundation
import Testing
@testable import PushRelay

@Suite("Relay configuration")
struct RelayConfigTests {
    @Test(arguments: [
        ("127.0.0.1:0", "127.0.0.1", 0), ("0.0.0.0:8080", "0.0.0.0", 8080), ("localhost:65535", "localhost", 65535),
        ("[::1]:443", "::1", 443),
    ] as [(String, String, Int)])
    func listenAddresses(text: String, host: String, port: Int) throws {
        let address = try #require(ListenAddress(parsing: text))
        #expect(address == ListenAddress(host: host, port: port))
        #expect(address.description == text)
    }

    @Test(arguments: ["", "8080", ":8080", "host:", "host:65536", "host:-1", "::1:80", "host:http"])
    func badListenAddresses(text: String) {
        #expect(ListenAddress(parsing: text) == nil)
    }

    @Test func senderKeyFlags() {
        #expect(SenderKey(parsing: "proj=k=ey") == SenderKey(project: "proj", key: "k=ey"))
        for bad in ["proj", "=key", "proj=", "a/b=key"] { #expect(SenderKey(parsing: bad) == nil, "\(bad)") }
    }

    @Test func configFile() throws {
        let config = try RelayFileConfig.parse("""
            listen = "0.0.0.0:8443"
            state_dir = "/var/lib/pushrelay"
            registration_key = "reg"

            [sender_keys]
            alpha = "a1"
            beta = ["b1", "b2"]
            """, fileName: "relay.toml")
        #expect(config == RelayFileConfig(
            listen: ListenAddress(host: "0.0.0.0", port: 8443), stateDirectory: "/var/lib/pushrelay", registrationKey: "reg",
            senderKeys: [.init(project: "alpha", key: "a1"), .init(project: "beta", key: "b1"), .init(project: "beta", key: "b2")]))
    }

    @Test(arguments: [
        ("unknown = 1", "unknown key `unknown`"),
        ("listen = 80", "`listen` must be a string"),
        ("listen = \"nope\"", "`listen` must be HOST:PORT"),
        ("state_dir = \"\"", "`state_dir`"),
        ("[sender_keys]\np = 1", "`sender_keys.p`"),
        ("[sender_keys]\np = [\"a\", 1]", "`sender_keys.p`"),
        ("sender_keys = \"k\"", "`sender_keys` must be a table"),
        ("listen = ", "relay.toml:1"),
        // The service accounts and the public URL (their other checks: ServiceAccountConfigTests).
        ("public_url = \"ftp://relay.example\"", "`public_url` must be an http or https URL"),
        ("public_url = \"https://relay.example/?q=1\"", "`public_url`"),
        ("[service_accounts]\np = 1", "`service_accounts.p`"),
        ("service_accounts = \"k.pem\"", "`service_accounts` must be a table"),
    ])
    func badConfigFiles(text: String, expected: String) {
        #expect {
            try RelayFileConfig.parse(text, fileName: "relay.toml")
        } throws: { error in
            "\(error)".contains(expected)
        }
    }

    @Test func flagsOverrideTheFile() throws {
        let file = RelayFileConfig(
            listen: ListenAddress(host: "0.0.0.0", port: 80), stateDirectory: "/file", registrationKey: "file-reg",
            senderKeys: [.init(project: "a", key: "file-a"), .init(project: "b", key: "file-b")])
        let config = try RelayConfig.resolve(
            listen: ListenAddress(host: "127.0.0.1", port: 0), stateDirectory: nil,
            senderKeys: [.init(project: "a", key: "flag-a")], registrationKey: nil, file: file, fileName: "f")
        #expect(config.listen == ListenAddress(host: "127.0.0.1", port: 0))
        #expect(config.database == .sqlite(directory: "/file"))
        #expect(config.registrationKey == "file-reg")
        #expect(config.senderKeys == [.init(project: "b", key: "file-b"), .init(project: "a", key: "flag-a")])
    }

    @Test func listenAndStateDirAreRequired() {
        #expect(throws: RelayConfigError.self) {
            try RelayConfig.resolve(listen: nil, stateDirectory: "/d", senderKeys: [], registrationKey: nil, file: nil, fileName: "f")
        }
        #expect(throws: RelayConfigError.self) {
            try RelayConfig.resolve(
                listen: ListenAddress(host: "h", port: 1), stateDirectory: nil, senderKeys: [], registrationKey: nil, file: nil, fileName: "f")
        }
    }
}

@Test func shippedExampleConfigParses() throws {
    let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("etc/pushagent/pushrelay.toml").path
    let config = try RelayFileConfig.parse(String(contentsOfFile: path, encoding: .utf8), fileName: path)
    #expect(config.listen == ListenAddress(host: "127.0.0.1", port: 8470))
    #expect(config.stateDirectory != nil)
}

@Suite("Relay database configuration")
struct RelayDatabaseConfigTests {
    private let listen = ListenAddress(host: "127.0.0.1", port: 0)

    @Test func stateDirIsSQLiteAndDatabaseURLsParse() throws {
        let fromStateDir = try RelayConfig.resolve(listen: listen, stateDirectory: "/s", senderKeys: [], registrationKey: nil, file: nil, fileName: "f")
        #expect(fromStateDir.database == .sqlite(directory: "/s"))
        let sqlite = try RelayConfig.resolve(listen: listen, stateDirectory: nil, database: .init(url: "sqlite:/d"), senderKeys: [],
                                             registrationKey: nil, file: nil, fileName: "f")
        #expect(sqlite.database == .sqlite(directory: "/d"))
        let postgres = try RelayConfig.resolve(
            listen: listen, stateDirectory: nil, database: .init(url: "postgresql://relay@db.example:6432/push?sslmode=verify-full"),
            senderKeys: [], registrationKey: nil, file: nil, fileName: "f", environment: [:])
        guard case .postgres(let settings) = postgres.database else { throw TestFailure("not PostgreSQL: \(postgres.database)") }
        #expect(settings.host == "db.example" && settings.port == 6432 && settings.user == "relay" && settings.database == "push")
        #expect(settings.tls == .verifyFull && settings.password == nil)
        #expect(settings.description == "postgres://relay@db.example:6432/push?sslmode=verify-full")
    }

    @Test func aPasswordOnTheCommandLineIsRefused() {
        #expect {
            try RelayConfig.resolve(listen: listen, stateDirectory: nil, database: .init(url: "postgres://relay:hunter2@db/push"),
                                    senderKeys: [], registrationKey: nil, file: nil, fileName: "f", environment: [:])
        } throws: { error in
            "\(error)".contains("password_file") && !"\(error)".contains("hunter2")
        }
    }

    @Test func thePasswordComesFromAFileTheCredentialOrTheConfigFileURL() throws {
        let directory = try makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "from-file\n".write(toFile: directory + "/password", atomically: true, encoding: .utf8)
        try "from-credential".write(toFile: directory + "/" + RelayDatabaseSetting.credentialName, atomically: true, encoding: .utf8)
        func password(_ setting: RelayDatabaseSetting, environment: [String: String], inFile: Bool = false) throws -> String? {
            var file: RelayFileConfig?
            if inFile {
                file = RelayFileConfig(listen: listen)
                file?.database = setting
            }
            let config = try RelayConfig.resolve(listen: listen, stateDirectory: nil, database: inFile ? nil : setting, senderKeys: [],
                                                 registrationKey: nil, file: file, fileName: "f", environment: environment)
            guard case .postgres(let settings) = config.database else { return nil }
            return settings.password
        }
        let url = "postgres://relay@db/push"
        let credentials = ["CREDENTIALS_DIRECTORY": directory]
        #expect(try password(.init(url: url, passwordFile: directory + "/password"), environment: credentials) == "from-file")
        #expect(try password(.init(url: url), environment: credentials) == "from-credential")
        #expect(try password(.init(url: url), environment: [:]) == nil)
        #expect(try password(.init(url: "postgres://relay:in-url@db/push"), environment: [:], inFile: true) == "in-url")
        #expect(throws: RelayConfigError.self) {
            try password(.init(url: url, passwordFile: directory + "/missing"), environment: [:])
        }
    }

    @Test func configFileDatabaseForms() throws {
        let plain = try RelayFileConfig.parse("database = \"postgres://relay@db/push\"", fileName: "f")
        #expect(plain.database == RelayDatabaseSetting(url: "postgres://relay@db/push"))
        let table = try RelayFileConfig.parse("""
            [database]
            url = "postgres://relay@db/push"
            password_file = "/etc/pushagent/db-password"
            """, fileName: "f")
        #expect(table.database == RelayDatabaseSetting(url: "postgres://relay@db/push", passwordFile: "/etc/pushagent/db-password"))
        for bad in ["state_dir = \"/s\"\ndatabase = \"sqlite:/d\"", "[database]\npassword_file = \"p\"", "[database]\nurl = \"x\"\nuser = \"u\""] {
            #expect(throws: RelayConfigError.self, "\(bad)") { try RelayFileConfig.parse(bad, fileName: "f") }
        }
    }

    @Test(arguments: ["mysql://relay@db/push", "postgres://db/push", "postgres://relay@db/", "postgres://relay@db/push?sslmode=maybe",
                      "postgres://relay@db/push?application=x", "sqlite:"])
    func badDatabaseURLs(url: String) {
        #expect(throws: RelayConfigError.self) {
            try RelayConfig.resolve(listen: listen, stateDirectory: nil, database: .init(url: url), senderKeys: [],
                                    registrationKey: nil, file: nil, fileName: "f", environment: [:])
        }
    }
}
