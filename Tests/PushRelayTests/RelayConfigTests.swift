import Foundation
import Testing
import PushRelay

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
