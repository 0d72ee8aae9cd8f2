import ClusterHarness
import ControlClient
import ControlWire
import Foundation
import Testing

/// `pushagentd --state-dir st --socket agent.sock`: relative paths name places under the directory it started in.
@Suite(.timeLimit(.minutes(1)))
struct DaemonRelativePathTests {
    @Test func startsWithRelativeStateDirectoryAndSocket() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("relative-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let relay = try ReservedLoopbackPort()
        let daemon = try ManagedProcess(
            name: "pushagentd", executable: Binaries.path("pushagentd"),
            arguments: ["--state-dir", "st", "--socket", "agent.sock", "--relay", "http://127.0.0.1:\(relay.port)"],
            workingDirectory: directory)
        let client = ControlClient(socketPath: directory + "/agent.sock")
        do {
            try await eventually("pushagentd answers on its socket") {
                guard daemon.isRunning else { throw HarnessError("pushagentd exited:\n\(daemon.text)") }
                return (try? await client.status()) != nil
            }
        } catch {
            await daemon.stop()
            throw error
        }
        await daemon.stop()
        #expect(FileManager.default.fileExists(atPath: directory + "/st/agent.sqlite"), "state under the start directory")
    }
}
