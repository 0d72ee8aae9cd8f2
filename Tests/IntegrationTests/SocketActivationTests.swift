import ClusterHarness
import ControlClient
import ControlWire
import Foundation
import Glibc
import Testing

/// pushagentd under socket activation and its SIGHUP reload. The socket is handed over as systemd does it: listening,
/// as fd 3, with LISTEN_FDS=1 and LISTEN_PID. (Not through systemd-socket-activate: it closes the descriptor
/// Foundation's Process watches its children by.) The booted-systemd version of both is scripts/test-systemd.sh.
struct SocketActivationTests {
    @Test func servesTheInheritedSocketAndReloadsOnSIGHUP() async throws {
        try await Cluster.run { cluster in
            try await activateAndReload(cluster)
        }
    }

    private func activateAndReload(_ cluster: Cluster) async throws {
        let socket = cluster.directory + "/activated.sock"
        let configFile = cluster.directory + "/pushagentd.toml"
        func writeConfig(operators: String, logLevel: String) throws {
            try """
            relay_url = "\(cluster.relayURL)"
            state_dir = "\(cluster.stateDirectory)"
            socket = "\(cluster.directory)/not-used.sock"
            operators = \(operators)
            log_level = "\(logLevel)"
            """.write(toFile: configFile, atomically: true, encoding: .utf8)
        }
        try writeConfig(operators: "[\"@pushagent\"]", logLevel: "info")
        let listener = try ListeningSocket.unix(at: socket)
        let daemon = try ManagedProcess(
            name: "pushagentd", executable: "/bin/sh",
            arguments: ["-c", "exec 3<&0 </dev/null; LISTEN_FDS=1 LISTEN_PID=$$ exec \"$0\" \"$@\"",
                        Binaries.path("pushagentd"), "--config", configFile],
            standardInput: FileHandle(fileDescriptor: listener, closeOnDealloc: true))
        defer { withExtendedLifetime(daemon) {} } // ManagedProcess kills a daemon still running when released
        let client = ControlClient(socketPath: socket)

        try await eventually("the activated daemon connects to the relay", timeout: .seconds(30)) {
            guard daemon.isRunning else { throw HarnessError("pushagentd exited:\n\(daemon.text)") }
            return try await client.status().relay.state == .connected
        }
        #expect(daemon.text.contains("control socket listening on \(socket) (socket-activated)"))
        #expect(!FileManager.default.fileExists(atPath: cluster.directory + "/not-used.sock"), "binds nothing itself")

        try writeConfig(operators: "[\"@pushagent\", \"alice\"]", logLevel: "debug")
        daemon.signal(SIGHUP)
        try await eventually("the reload is logged with what changed") {
            daemon.text.contains("configuration reloaded: log_level: info → debug; operators: @pushagent → @pushagent, alice")
        }
        try writeConfig(operators: "[", logLevel: "debug")
        daemon.signal(SIGHUP)
        try await eventually("a config that does not load is reported and the running one kept") {
            daemon.text.contains("configuration reload failed, still running with the previous configuration")
        }
        #expect(try await client.status().relay.state == .connected, "the same process still serves")

        daemon.signal(SIGTERM)
        let exit = try await daemon.waitForExit()
        #expect(exit.status == 0 && !exit.signaled, "stops cleanly: \(daemon.text)")
        #expect(FileManager.default.fileExists(atPath: socket), "the socket belongs to the activator and is left in place")
    }
}
