import ClusterHarness
import Foundation
import NIOCore
@testable import PushAgentDaemon
import PushAgentCore
import Testing

/// MCS's TLS trusts the system's CAs through their hashed directory: a certificate whose hash link is there is
/// trusted, one that is not is refused. pushsim's FCM emulator is the server, with its own self-signed certificate.
struct MCSConnectionTests {
    @Test func theSystemCAsAreFoundByTheirHashLinks() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mcs-tls-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory + "/certs", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let emulator = try await FCMEmulatorProcess(directory: directory)
        defer { Task { await emulator.stop() } }
        let empty = TLSContexts(systemCADirectory: directory + "/certs")
        let hash = try await CommandResult.run("/usr/bin/openssl", ["x509", "-hash", "-noout", "-in", emulator.certificate])
        try FileManager.default.copyItem(atPath: emulator.certificate,
                                        toPath: directory + "/certs/" + hash.stdout.trimmingCharacters(in: .whitespacesAndNewlines) + ".0")
        #expect(TLSContexts.hasHashedCertificates(directory + "/certs"))
        #expect(TLSContexts.hasHashedCertificates("/etc/ssl/certs"), "Debian's ca-certificates makes the links")

        let trusted = try await MCSConnection.open(host: emulator.mcsHost, port: emulator.mcsPort,
                                                   tls: try TLSContexts(systemCADirectory: directory + "/certs").context(caFile: nil),
                                                   proxy: nil)
        #expect(try await Self.pingAnswered(trusted), "the handshake completed and MCS answered inside it")

        try FileManager.default.removeItem(atPath: directory + "/certs")
        try FileManager.default.createDirectory(atPath: directory + "/certs", withIntermediateDirectories: true)
        // The handshake's own failure, not the closed channel it leaves (which a first write used to meet instead).
        await #expect("a certificate no CA vouches for is refused") {
            _ = try await MCSConnection.open(host: emulator.mcsHost, port: emulator.mcsPort,
                                             tls: try empty.context(caFile: nil), proxy: nil)
        } throws: { error in
            "\(MCSFailure(host: emulator.mcsHost, port: emulator.mcsPort, underlying: error))".contains("is not signed by a CA this machine trusts")
        }
    }

    /// A proxy that takes the connection and never answers CONNECT (its own connection onward hanging where a port
    /// is dropped) is given up after the timeout, with a message that says so.
    @Test func aProxyThatNeverAnswersIsGivenUp() async throws {
        let (fd, port) = try ListeningSocket.loopback()
        defer { close(fd) }
        let proxy = HTTPSProxy(host: "127.0.0.1", port: port)
        await #expect { _ = try await MCSConnection.open(host: "mtalk.example", port: 5228, tls: try TLSContexts().context(caFile: nil),
                                                        proxy: proxy, proxyReplyTimeout: .milliseconds(500)) } throws: { error in
            "\(error)".contains("no tunnel to mtalk.example:5228 through the proxy 127.0.0.1:")
                && "\(error)".contains("the proxy did not answer CONNECT within 0.5 s")
        }
    }

    /// A certificate for another name is said to be for another name, with the host and port it came from; before,
    /// the error named neither (`NIOSSLExtraError.failedToValidateHostname`).
    @Test func aCertificateForAnotherNameIsSaidToBeSo() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mcs-name-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The emulator takes the certificate it finds in its directory: this one names another host only.
        try await FCMEmulatorProcess.makeCertificate(directory + "/fcm-cert.pem", key: directory + "/fcm-key.pem",
                                                     names: "DNS:mtalk.example")
        let emulator = try await FCMEmulatorProcess(directory: directory)
        defer { Task { await emulator.stop() } }
        await #expect {
            _ = try await MCSConnection.open(host: "localhost", port: emulator.mcsPort,
                                             tls: try TLSContexts().context(caFile: emulator.certificate), proxy: nil)
        } throws: { error in
            let said = "\(MCSFailure(host: "localhost", port: emulator.mcsPort, underlying: error))"
            return said.hasPrefix("the TLS certificate of localhost:\(emulator.mcsPort) is not for localhost")
                && said.contains("fcm_ca_file")
        }
    }

    /// Sends MCS's version and a heartbeat ping; true once bytes come back.
    static func pingAnswered(_ connection: MCSConnection) async throws -> Bool {
        try await connection.channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(bytes: try MCSFraming.frame(.heartbeatPing(McsProto_HeartbeatPing()), withVersion: true)))
            for try await chunk in inbound where chunk.readableBytes > 0 { return true }
            return false
        }
    }
}
