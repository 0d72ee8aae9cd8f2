import ArgumentParser
import ControlClient
import DesktopNotify
import Foundation
import PushAgentCore
import Synchronization

struct Notify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show approvals as desktop notifications with Approve / Deny buttons (runs until stopped).",
        discussion: """
            Follows the daemon's events and calls org.freedesktop.Notifications on the session bus: one notification \
            per pending approval, with a button per number for number challenges, closed when the approval is \
            answered anywhere. Buttons answer as you, under the daemon's operator rules. Without action support in \
            the notification server, the text says which pushctl command answers. Its log lines go to stderr; it \
            prints nothing on stdout (so no --json). On SIGTERM or Ctrl-C it closes its notifications (the approvals \
            stay pending). Exit 6 when there is no session bus and --wait is not given. The user unit \
            pushagent-notify.service runs it in a graphical session (systemctl --user enable pushagent-notify).
            """)
    @Option(help: GlobalOptions.socketHelp) var socket: String?
    @Flag(help: "Without a session bus, keep trying until one appears (what the user unit does) instead of exiting 6.")
    var wait = false

    func run() async throws {
        let notifier = DesktopNotifier(client: ControlClient(resolving: socket), waitForBus: wait) { line in
            FileHandle.standardError.write(Data(("pushctl notify: " + line + "\n").utf8))
        }
        // Stopping closes the notifications: a button left on screen would answer nothing. A second signal does not
        // wait for that.
        let stopping = Mutex<Task<Void, any Error>?>(nil)
        let stops = [SIGTERM, SIGINT].map { (number: Int32) -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number)
            source.setEventHandler {
                guard let running = stopping.withLock({ $0 }), !running.isCancelled else { Glibc.exit(128 + number) }
                running.cancel()
            }
            source.resume()
            return source
        }
        defer { stops.forEach { $0.cancel() } }
        let running = Task { try await notifier.run() }
        stopping.withLock { $0 = running }
        do {
            try await running.value
        } catch let error as NoSessionBus {
            Output.error("notify: \(error)")
            throw ExitCode(ExitStatus.noSessionBus)
        }
    }
}

/// The notifier's buttons answer through the control API, as the user who runs `pushctl notify`.
extension ControlClient: ApprovalDaemon {
    public func answer(_ id: String, _ decision: ApprovalNotification.Decision) async throws -> Approval {
        switch decision {
        case .approve(let number): try await approve(id, number: number)
        case .deny(let reason): try await deny(id, reason: reason)
        }
    }
}
