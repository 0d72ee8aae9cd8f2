import ClusterHarness
import Foundation

/// What the suites need besides the Python connector (which its script installs from PyPI): Debian's dbus-daemon
/// and dbus-send (the Makefile's apt list has both).
let sessionBusPrograms = ["/usr/bin/dbus-daemon", "/usr/bin/dbus-send"]
let sessionBusAvailable = sessionBusPrograms.allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }

/// A private session bus for one test (Debian's dbus-daemon, stopped by its PID), with a service directory of its
/// own, so that a test decides which apps the bus can start (D-Bus activation) by writing their service files.
final class TestSessionBus: Sendable {
    let directory: String
    let address: String
    private let daemon: ManagedProcess

    var serviceDirectory: String { directory + "/services" }
    /// For the connector processes: they find the bus as apps on a desktop do.
    var environment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": address] }

    private init(directory: String, address: String, daemon: ManagedProcess) {
        self.directory = directory
        self.address = address
        self.daemon = daemon
    }

    static func start() async throws -> TestSessionBus {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("unifiedpush-bus-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory + "/services", withIntermediateDirectories: true)
        let config = directory + "/session.conf"
        try """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>unix:tmpdir=/tmp</listen>
          <auth>EXTERNAL</auth>
          <servicedir>\(directory)/services</servicedir>
          <!-- Python starting on a loaded machine: past the default 25 s, activation would fail. -->
          <limit name="service_start_timeout">150000</limit>
          <policy context="default">
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
          </policy>
        </busconfig>
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let address = "unix:path=\(directory)/bus"
        let daemon = try ManagedProcess(name: "dbus-daemon", executable: "/usr/bin/dbus-daemon", arguments: [
            "--config-file=\(config)", "--nofork", "--address=\(address)", "--print-address=1"])
        _ = try await daemon.waitForLine(startingWith: "unix:")
        return TestSessionBus(directory: directory, address: address, daemon: daemon)
    }

    /// Makes `service` activatable: the bus runs the connector's `serve` for it when a call is addressed to it.
    func installConnector(_ service: String, log: String) throws {
        try """
        [D-BUS Service]
        Name=\(service)
        Exec=/bin/bash \(Connector.script) serve --service \(service) --log \(log)

        """.write(toFile: "\(serviceDirectory)/\(service).service", atomically: true, encoding: .utf8)
    }

    /// SIGKILL: what the distributor sees when the session ends under it. The connectors it started see the
    /// connection close and exit.
    func kill() async {
        daemon.signal(SIGKILL)
        _ = try? await daemon.waitForExit()
    }

    func stop() async {
        await kill()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// Runs `body` with a fresh bus, stopped afterwards whatever happens.
func withSessionBus(_ body: (TestSessionBus) async throws -> Void) async throws {
    let bus = try await TestSessionBus.start()
    do {
        try await body(bus)
    } catch {
        await bus.stop()
        throw error
    }
    await bus.stop()
}
