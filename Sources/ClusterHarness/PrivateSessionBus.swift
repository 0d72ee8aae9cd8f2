import Foundation

/// What the suites need besides the Python connector (which its script installs from PyPI): Debian's dbus-daemon
/// and dbus-send (the Makefile's apt list has both).
public let sessionBusPrograms = ["/usr/bin/dbus-daemon", "/usr/bin/dbus-send"]
public let sessionBusAvailable = sessionBusPrograms.allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }

/// A private session bus for one test (the UnifiedPush distributor's and its apps'; Debian's dbus-daemon, stopped by
/// its PID), with a service directory of its own, so that a test decides which apps the bus can start (D-Bus
/// activation) by writing their service files.
public final class PrivateSessionBus: Sendable {
    public let directory: String
    public let address: String
    private let daemon: ManagedProcess

    public var serviceDirectory: String { directory + "/services" }
    /// For the connector processes: they find the bus as apps on a desktop do.
    public var environment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": address] }

    private init(directory: String, address: String, daemon: ManagedProcess) {
        self.directory = directory
        self.address = address
        self.daemon = daemon
    }

    public static func start() async throws -> PrivateSessionBus {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("unifiedpush-bus-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory + "/services", withIntermediateDirectories: true)
        let address = "unix:path=\(directory)/bus"
        // Python starting on a loaded machine: past the default 25 s, activation would fail.
        let daemon = try await DBusDaemon.startSessionBus(address: address, configFile: directory + "/session.conf",
                                                          serviceDirectory: directory + "/services",
                                                          serviceStartTimeoutMs: 150_000)
        return PrivateSessionBus(directory: directory, address: address, daemon: daemon)
    }

    /// Makes `service` activatable: the bus runs the connector's `serve` for it when a call is addressed to it.
    public func installConnector(_ service: String, log: String) throws {
        try """
        [D-BUS Service]
        Name=\(service)
        Exec=/bin/bash \(UnifiedPushConnector.script) serve --service \(service) --log \(log)

        """.write(toFile: "\(serviceDirectory)/\(service).service", atomically: true, encoding: .utf8)
    }

    /// SIGKILL: what the distributor sees when the session ends under it. The connectors it started see the
    /// connection close and exit.
    public func kill() async {
        daemon.signal(SIGKILL)
        _ = try? await daemon.waitForExit()
    }

    public func stop() async {
        await kill()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// Runs `body` with a fresh bus, stopped afterwards whatever happens.
public func withSessionBus(_ body: (PrivateSessionBus) async throws -> Void) async throws {
    let bus = try await PrivateSessionBus.start()
    do {
        try await body(bus)
    } catch {
        await bus.stop()
        throw error
    }
    await bus.stop()
}

/// Debian's dbus-daemon as the harness starts it (PrivateSessionBus, PrivateSystemBus, DesktopSession), stopped by
/// its PID.
enum DBusDaemon {
    /// A session bus with a configuration of its own, written to `configFile`: it starts only the services in
    /// `serviceDirectory` (D-Bus activation; none when it holds no file), lets any connection own any name and
    /// eavesdrop (dbus-monitor), and gives an activated service `serviceStartTimeoutMs` to take its name (nil:
    /// dbus-daemon's default, 25 s).
    static func startSessionBus(address: String, configFile: String, serviceDirectory: String,
                                serviceStartTimeoutMs: Int? = nil) async throws -> ManagedProcess {
        let limit = serviceStartTimeoutMs.map { "\n  <limit name=\"service_start_timeout\">\($0)</limit>" } ?? ""
        try """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>unix:tmpdir=/tmp</listen>
          <auth>EXTERNAL</auth>
          <servicedir>\(serviceDirectory)</servicedir>\(limit)
          <policy context="default">
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
          </policy>
        </busconfig>
        """.write(toFile: configFile, atomically: true, encoding: .utf8)
        return try await start(["--config-file=\(configFile)"], address: address)
    }

    /// dbus-daemon configured by `configuration` (its options for that) at `address`; returns once it listens.
    static func start(_ configuration: [String], address: String) async throws -> ManagedProcess {
        let arguments = configuration + ["--nofork", "--address=\(address)", "--print-address=1"]
        let daemon = try ManagedProcess(name: "dbus-daemon", executable: "/usr/bin/dbus-daemon", arguments: arguments)
        _ = try await daemon.waitForLine(startingWith: "unix:")
        return daemon
    }
}
