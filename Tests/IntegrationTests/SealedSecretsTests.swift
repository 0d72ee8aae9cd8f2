import ClusterHarness
import ControlWire
import Foundation
import Testing

/// Issue 17, with the real daemon: what it enrolls is sealed in its state files, `pushctl status` says by what, and
/// the store copied into another state directory (another key) makes the daemon refuse to start, saying why.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct SealedSecretsTests {
    @Test func enrolledSecretsAreSealedAndACopiedStoreIsRefused() async throws {
        try await ForgeRockEndToEndTests.withEnrolledCluster { cluster, sim in
            let uri = try await sim.enrollURI(.init(account: "bob"))
            #expect(try await cluster.pushctl(["enroll", uri]).status == 0)
            let sharedSecret = try #require(URLComponents(string: uri)?.queryItems?.first { $0.name == "s" }?.value)
            let stored = Self.standardBase64(ofBase64URL: sharedSecret).split(separator: "/").max { $0.count < $1.count } ?? ""
            #expect(stored.count >= 8)
            let files = try FileManager.default.contentsOfDirectory(atPath: cluster.stateDirectory)
                .filter { $0.hasPrefix("agent.sqlite") }
            #expect(!files.isEmpty)
            for file in files {
                let bytes = try #require(FileManager.default.contents(atPath: cluster.stateDirectory + "/" + file))
                #expect(bytes.range(of: Data(stored.utf8)) == nil, "\(file) holds the shared secret in clear")
            }
            let status = try await cluster.pushctl(["status"])
            #expect(status.stdout.contains("secrets sealed by: key file"), "\(status.stdout)")

            // The store alone, in a fresh state directory: the daemon must refuse it, writing no new key there.
            await cluster.daemon?.stop()
            let copy = cluster.directory + "/copied-state"
            try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
            // (A clean stop leaves the database file alone: the WAL is checkpointed into it and removed.)
            for file in try FileManager.default.contentsOfDirectory(atPath: cluster.stateDirectory) where file.hasPrefix("agent.sqlite") {
                try FileManager.default.copyItem(atPath: cluster.stateDirectory + "/" + file, toPath: copy + "/" + file)
            }
            let refused = try await CommandResult.run(Binaries.path("pushagentd"), [
                "--state-dir", copy, "--socket", cluster.directory + "/copy.sock", "--relay", cluster.relayURL])
            #expect(refused.status != 0)
            #expect(refused.stderr.contains("sealed with a key that is not here (no secrets.key")
                        && refused.stderr.contains("pushctl restore"), "\(refused.stderr)")
            // Issue 24: a new secrets.key was written first, before the store was found sealed with another.
            #expect(!FileManager.default.fileExists(atPath: copy + "/secrets.key"), "no key written beside the copy")
        }
    }

    static func standardBase64(ofBase64URL text: String) -> String {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return base64
    }
}
