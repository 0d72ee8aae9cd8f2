import Crypto
import CryptoExtras
import Foundation
import Testing
@testable import PushRelay

@Suite("Service-account keys in the relay configuration")
struct ServiceAccountConfigTests {
    private let account = TestServiceAccount.main

    /// The key id is what `openssl pkey -pubin -in KEY -outform DER | sha256sum` prints: SHA-256 of the PEM's DER body.
    @Test func keyIDIsTheSHA256OfTheSubjectPublicKeyInfo() throws {
        let body = account.publicKeyPEM.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        let der = try #require(Data(base64Encoded: body))
        let expected = SHA256.hash(data: der).map { String(format: "%02x", $0) }.joined()
        #expect(try account.registration().keyID == expected)
    }

    @Test func refusedKeys() throws {
        let small = try _RSA.Signing.PrivateKey(unsafeKeySize: .init(bitCount: 1024))
        let cases = [
            (account.privateKey.pemRepresentation, "this is a private key"),
            (P256.Signing.PrivateKey().publicKey.pemRepresentation, "not an RSA public key"),
            ("-----BEGIN PUBLIC KEY-----\nbm9wZQ==\n-----END PUBLIC KEY-----\n", "not an RSA public key"),
            (small.publicKey.pemRepresentation, "the RSA key has 1024 bits; at least 2048 are required"),
        ]
        for (pem, expected) in cases {
            #expect {
                try ServiceAccountKey(project: "p", pem: pem, origin: "--service-account p")
            } throws: { error in
                "\(error)".hasPrefix("--service-account p: ") && "\(error)".contains(expected)
            }
        }
    }

    @Test func unreadableFileIsNamed() {
        #expect {
            try ServiceAccountKey.load(.init(project: "p", path: "/nonexistent/key.pem"), origin: "--service-account p")
        } throws: { error in
            "\(error)".contains("--service-account p: cannot read /nonexistent/key.pem")
        }
    }

    @Test func flagSyntax() {
        #expect(ServiceAccountKeyFile(parsing: "proj=/etc/k=1.pem") == .init(project: "proj", path: "/etc/k=1.pem"))
        for bad in ["proj", "=k.pem", "proj=", "a/b=k.pem"] { #expect(ServiceAccountKeyFile(parsing: bad) == nil, "\(bad)") }
    }

    @Test func configFileKeys() throws {
        let config = try RelayFileConfig.parse("""
            public_url = "https://relay.example/push"

            [service_accounts]
            alpha = "alpha.pub.pem"
            beta = ["/keys/b1.pem", "/keys/b2.pem"]
            """, fileName: "relay.toml")
        #expect(config.publicURL == "https://relay.example/push")
        #expect(config.serviceAccounts == [
            .init(project: "alpha", path: "alpha.pub.pem"), .init(project: "beta", path: "/keys/b1.pem"),
            .init(project: "beta", path: "/keys/b2.pem"),
        ])
    }

    /// Relative paths in the file are the file's neighbours; a project given by flag takes only the flags' keys.
    @Test func resolveReadsKeysAndFlagsOverrideProjects() throws {
        let directory = try makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try account.publicKeyPEM.write(toFile: directory + "/main.pub.pem", atomically: true, encoding: .utf8)
        try TestServiceAccount.second.publicKeyPEM.write(toFile: directory + "/second.pub.pem", atomically: true, encoding: .utf8)
        let file = RelayFileConfig(
            listen: ListenAddress(host: "127.0.0.1", port: 0), stateDirectory: directory,
            serviceAccounts: [.init(project: "a", path: "main.pub.pem"), .init(project: "b", path: "main.pub.pem")])

        let config = try RelayConfig.resolve(
            listen: nil, stateDirectory: nil, senderKeys: [], registrationKey: nil,
            serviceAccounts: [.init(project: "b", path: directory + "/second.pub.pem")], publicURL: "http://relay.example",
            file: file, fileName: directory + "/pushrelay.toml")
        #expect(config.serviceAccountKeys.map(\.project) == ["a", "b"])
        #expect(try config.serviceAccountKeys.map(\.keyID) == [account.registration().keyID, TestServiceAccount.second.registration().keyID])
        #expect(config.publicURL == "http://relay.example")

        #expect {
            try RelayConfig.resolve(
                listen: nil, stateDirectory: nil, senderKeys: [], registrationKey: nil,
                file: RelayFileConfig(listen: file.listen, stateDirectory: directory, serviceAccounts: [.init(project: "c", path: "missing.pem")]),
                fileName: directory + "/pushrelay.toml")
        } throws: { error in
            "\(error)".contains("`service_accounts.c` in \(directory)/pushrelay.toml: cannot read \(directory)/missing.pem")
        }
    }
}
