import Foundation
import Synchronization

/// A desktop for the notifier's tests, from Debian's programs: Xvfb, a private session bus (dbus-daemon) and
/// dunst, a notification server with actions. What pushctl notify asks of the server is read back from the bus
/// (dbus-monitor); a button is pressed the way a user does, through dunst's context menu (`dunstctl context`),
/// whose menu program is a script here that picks the wanted line.
public final class DesktopSession: Sendable {
    public static let programs = ["/usr/bin/Xvfb", "/usr/bin/dbus-daemon", "/usr/bin/dbus-monitor", "/usr/bin/dunst",
                                  "/usr/bin/dunstctl", "/usr/bin/dunstify"]
    public static var missingPrograms: [String] { programs.filter { !FileManager.default.isExecutableFile(atPath: $0) } }

    public let directory: String
    public let environment: [String: String]
    private let xvfb: ManagedProcess
    /// The session bus's programs: replaced by `restartBus`. Every dbus-monitor is kept, for what it saw.
    private let bus = Mutex<(daemon: ManagedProcess, server: ManagedProcess)?>(nil)
    private let monitors = Mutex<[ManagedProcess]>([])

    private init(directory: String, environment: [String: String], xvfb: ManagedProcess) {
        self.directory = directory
        self.environment = environment
        self.xvfb = xvfb
    }

    public static func start(directory: String) async throws -> DesktopSession {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // -displayfd: Xvfb picks a free display and prints its number.
        let xvfb = try ManagedProcess(name: "Xvfb", executable: "/usr/bin/Xvfb",
                                      arguments: ["-displayfd", "1", "-screen", "0", "1024x768x24", "-nolisten", "tcp"])
        var display = ""
        try await eventually("Xvfb prints its display number") {
            display = xvfb.text.split(separator: "\n").first { !$0.isEmpty && $0.allSatisfy(\.isNumber) }.map { ":\($0)" } ?? ""
            return !display.isEmpty
        }
        let menu = directory + "/pick-menu-line"
        try """
        #!/bin/sh
        # dunst's context menu: the line with the label and the notification id the test asked for.
        grep -F -- "$(sed -n 1p '\(directory)/wanted')" | grep -F -- "$(sed -n 2p '\(directory)/wanted')" | head -n1

        """.write(toFile: menu, atomically: true, encoding: .utf8)
        // Run by /bin/sh, not executed itself: a process forked by another test while this one wrote the file may hold
        // it open for writing, and executing it would then fail with "Text file busy" (PAMTestService says more).
        try """
        [global]
            dmenu = /bin/sh \(menu)
            width = 420
            origin = top-right
            offset = 10x10
            font = DejaVu Sans 10
            frame_width = 2
        """.write(toFile: directory + "/dunstrc", atomically: true, encoding: .utf8)
        // A fixed address, so a restarted bus is found where the notifier looks.
        let session = DesktopSession(directory: directory, environment: [
            "DISPLAY": display, "DBUS_SESSION_BUS_ADDRESS": "unix:path=\(directory)/bus"], xvfb: xvfb)
        try await session.startBus()
        return session
    }

    /// Kills the session bus and the notification server, and starts both again at the same address: what a
    /// notifier sees when the user's session bus restarts.
    public func restartBus() async throws {
        await stopBus()
        try await startBus()
    }

    /// Kills the notification server and starts another on the same bus, running `whileDown` in between: what a
    /// notifier sees when the user's notification daemon crashes or is restarted.
    public func restartServer(whileDown: () async throws -> Void = {}) async throws {
        guard let (daemon, server) = bus.withLock({ $0 }) else { throw HarnessError("the session bus is not running") }
        await Self.kill(server)
        try await eventually("the notifications' name is released") {
            (try? await self.dunstctl(["count", "displayed"]))?.status != 0
        }
        try await whileDown()
        try await startServer(on: daemon)
    }

    private func startBus() async throws {
        unlink(directory + "/bus")  // a killed daemon leaves its socket behind
        // A session bus that starts no service by itself (no service directory with a file in it), so that the test,
        // not D-Bus activation, decides when a notification server runs.
        try FileManager.default.createDirectory(atPath: directory + "/no-services", withIntermediateDirectories: true)
        let daemon = try await DBusDaemon.startSessionBus(address: environment["DBUS_SESSION_BUS_ADDRESS"] ?? "",
                                                          configFile: directory + "/session-bus.conf",
                                                          serviceDirectory: directory + "/no-services")
        let monitor = try ManagedProcess(name: "dbus-monitor", executable: "/usr/bin/dbus-monitor",
                                         // Returns carry no interface: they are matched to calls by serial.
                                         arguments: ["--session", "interface='org.freedesktop.Notifications'",
                                                     "type='method_return'"],
                                         environment: environment)
        monitors.withLock { $0.append(monitor) }
        try await startServer(on: daemon)
    }

    private func startServer(on daemon: ManagedProcess) async throws {
        let server = try ManagedProcess(name: "dunst", executable: "/usr/bin/dunst",
                                        arguments: ["-config", directory + "/dunstrc"], environment: environment)
        bus.withLock { $0 = (daemon, server) }
        try await eventually("dunst serves org.freedesktop.Notifications") {
            guard server.isRunning else { throw HarnessError("dunst exited:\n\(server.text)") }
            return (try? await self.dunstctl(["count", "displayed"]))?.status == 0
        }
    }

    /// How many notifications the server shows now.
    public func displayedCount() async throws -> Int {
        let count = try await dunstctl(["count", "displayed"])
        guard count.status == 0, let number = Int(count.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw HarnessError("dunstctl count displayed: \(count.stdout)\(count.stderr)")
        }
        return number
    }

    /// Shows and closes `count` notifications of another program, so that the server's next ids are past them: a
    /// restarted server, whose ids start again at 1, then gives ids the old one never gave.
    public func useUpIds(_ count: Int) async throws {
        for index in 0..<count {
            let shown = try await CommandResult.run("/usr/bin/dunstify", ["-a", "filler", "-p", "filler \(index)"],
                                                    environment: environment)
            let id = shown.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            guard shown.status == 0, let id = UInt32(id) else { throw HarnessError("dunstify: \(shown.stderr)") }
            try await closeFromAnotherClient(id)
        }
    }

    /// Another program on the bus closes notification `id` (CloseNotification): not the user.
    public func closeFromAnotherClient(_ id: UInt32) async throws {
        let closed = try await CommandResult.run("/usr/bin/dunstify", ["-C", "\(id)"], environment: environment)
        guard closed.status == 0 else { throw HarnessError("dunstify -C (CloseNotification): \(closed.stderr)") }
    }

    private func stopBus() async {
        guard let (daemon, server) = bus.withLock({ $0 }) else { return }
        for process in [server, daemon] { await Self.kill(process) }
    }

    /// Every Notify call seen on the bus, in order.
    public func notifications() -> [SeenNotification] { logs.flatMap(\.notifications) }

    /// The ids CloseNotification was called with.
    public func closedIds() -> [UInt32] { logs.flatMap(\.closedIds) }

    private var logs: [DBusMonitorLog] { monitors.withLock { $0.map { DBusMonitorLog($0.text) } } }

    /// Presses the button labelled `label` on notification `id`, as a user would in dunst's context menu.
    public func pressButton(_ label: String, onNotification id: UInt32) async throws {
        // dunst lists each action as "#<label> (<summary>) [<id>,<key>]".
        try "#\(label) (\n[\(id),\n".write(toFile: directory + "/wanted", atomically: true, encoding: .utf8)
        let pressed = try await dunstctl(["context"])
        guard pressed.status == 0 else { throw HarnessError("dunstctl context failed: \(pressed.stderr)") }
    }

    public func dunstctl(_ arguments: [String]) async throws -> CommandResult {
        try await CommandResult.run("/usr/bin/dunstctl", arguments, environment: environment)
    }

    public func stop() async {
        await stopBus()
        for process in monitors.withLock({ $0 }) + [xvfb] { await Self.kill(process) }
    }

    /// SIGKILL: these programs keep the SIGTERM disposition they inherit, and the test process ignores SIGTERM
    /// (swift-service-lifecycle's handlers in the tests of the daemon), so a polite stop would wait for its timeout.
    private static func kill(_ process: ManagedProcess) async {
        process.signal(SIGKILL)
        _ = try? await process.waitForExit()
    }
}
