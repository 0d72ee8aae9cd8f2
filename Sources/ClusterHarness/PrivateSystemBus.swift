import Foundation

/// A private D-Bus daemon standing in for the system bus (Debian's dbus-daemon, stopped by its PID): programs given
/// `environment` connect to it as their system bus, and `emit` sends signals on it as dbus-send does.
public final class PrivateSystemBus: Sendable {
    public let address: String
    private let daemon: ManagedProcess

    public init(directory: String) async throws {
        address = "unix:path=\(directory)/system_bus_socket"
        // dbus-daemon's stock session configuration is all a bus that only carries logind's signal needs.
        daemon = try await DBusDaemon.start(["--session"], address: address)
    }

    public var environment: [String: String] { ["DBUS_SYSTEM_BUS_ADDRESS": address] }

    /// logind's signal around a suspend: `PrepareForSleep(true)` before, `(false)` after the wake.
    public func prepareForSleep(_ sleeping: Bool) async throws {
        let sent = try await CommandResult.run("/usr/bin/dbus-send", [
            "--bus=\(address)", "--type=signal", "/org/freedesktop/login1", "org.freedesktop.login1.Manager.PrepareForSleep",
            "boolean:\(sleeping)"])
        guard sent.status == 0 else { throw HarnessError("dbus-send failed: \(sent.stderr)") }
    }

    public func stop() async { await daemon.stop() }
}
