@testable import ClusterHarness
import Foundation
import Testing

/// The harness stops the PostgreSQL clusters of test processes that died without stopping theirs, by the postmaster's
/// pid in the cluster's files; a pid that has since gone to another process is left alone.
@Suite struct PostgresOrphanTests {
    /// A cluster directory as a dead test process leaves it, its postmaster's pid `postmaster`. Put in place whole:
    /// another test's cluster starting meanwhile cleans up orphans too.
    private func orphan(postmaster: pid_t) throws -> String {
        // No process has a pid above the kernel's largest: the owner is dead whatever pids came round meanwhile.
        let pidMax = try String(contentsOfFile: "/proc/sys/kernel/pid_max", encoding: .utf8)
        let deadOwner = try #require(pid_t(pidMax.trimmingCharacters(in: .whitespacesAndNewlines))) + 1
        let temporary = FileManager.default.temporaryDirectory
        let name = "test-\(UUID().uuidString.prefix(8))"
        let staging = temporary.appendingPathComponent("staging-\(name)").path
        let directory = temporary.appendingPathComponent("\(PostgresServer.directoryPrefix)\(name)").path
        try FileManager.default.createDirectory(atPath: staging + "/data", withIntermediateDirectories: true)
        try "\(deadOwner)".write(toFile: staging + "/" + PostgresServer.ownerFile, atomically: true, encoding: .utf8)
        try "\(postmaster)\n\(directory)/data\n".write(toFile: staging + "/data/postmaster.pid", atomically: true, encoding: .utf8)
        try FileManager.default.moveItem(atPath: staging, toPath: directory)
        return directory
    }

    /// Before: the process now holding the pid was sent SIGKILL.
    @Test func aPidTakenSinceByAnotherProcessIsNotKilled() async throws {
        let bystander = try ManagedProcess(name: "sleep", executable: "/bin/sleep", arguments: ["60"])
        defer { bystander.signal(SIGKILL) }
        let directory = try orphan(postmaster: bystander.pid)
        PostgresServer.stopOrphans()
        #expect(!FileManager.default.fileExists(atPath: directory), "the orphan's files are removed")
        try await Task.sleep(for: .milliseconds(200))
        #expect(bystander.isRunning, "\(bystander.name) was killed: \(bystander.text)")
    }

    @Test func aPostmasterIsKnownByItsDataDirectory() async throws {
        // A postmaster's arguments, which python3 leaves alone after its -c program.
        let postmaster = try ManagedProcess(name: "python3", executable: "/usr/bin/python3", arguments: [
            "-c", "import time; time.sleep(60)", "-D", "/tmp/x/data"])
        defer { postmaster.signal(SIGKILL) }
        // posix_spawn returns while the exec is still setting the new program up, before the kernel shows its
        // arguments: read at once, in one full run they were not there yet.
        try await eventually("python3's arguments are shown") {
            PostgresServer.isPostmaster(postmaster.pid, of: "/tmp/x/data")
        }
        #expect(!PostgresServer.isPostmaster(postmaster.pid, of: "/tmp/y/data"))
        #expect(!PostgresServer.isPostmaster(getpid(), of: "/tmp/x/data"))
    }
}
