import ArgumentParser
import ControlClient
import DesktopNotify
import Foundation
import PushAgentCore

struct Notify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show approvals as desktop notifications with Approve / Deny buttons (runs until stopped).",
        discussion: """
            Follows the daemon's events and calls org.freedesktop.Notifications on the session bus: one notification \
            per pending approval, with a button per number for number challenges, closed when the approval is \
            answered anywhere. Buttons answer as you, under the daemon's operator rules. Without action support in \
            the notification server, the text says which pushctl command answers. The user unit \
            pushagent-notify.service runs it in a graphical session (systemctl --user enable pushagent-notify).
            """)
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        await DesktopNotifier(client: global.client) { line in
            FileHandle.standardError.write(Data(("pushctl notify: " + line + "\n").utf8))
        }.run()
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
