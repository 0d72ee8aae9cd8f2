import ControlWire
import Foundation
import Synchronization

/// How the FCM receiver is doing, for `pushctl status`.
final class FCMStatusBox: Sendable {
    struct Status {
        var state = "registering"
        var error: String?
        var connectedSince: Date?
        var lastHeartbeat: Date?
        var lastMessage: Date?
        var tokenIssued: Date?
    }

    private let status = Mutex(Status())

    func update(_ change: (inout Status) -> Void) { status.withLock { change(&$0) } }

    var current: Status { status.withLock { $0 } }

    func health(name: String) -> PushSourceStatus {
        let status = current
        var facts: [String] = []
        if let error = status.error, status.state != "connected" { facts.append(error) }
        if let since = status.connectedSince { facts.append("connected since \(since.formatted(.iso8601))") }
        if let beat = status.lastHeartbeat { facts.append("last heartbeat \(beat.formatted(.iso8601))") }
        if let issued = status.tokenIssued {
            facts.append("token \(Int(Date().timeIntervalSince(issued) / 86_400)) day(s) old")
        }
        return PushSourceStatus(name: name, state: status.state, detail: facts.isEmpty ? nil : facts.joined(separator: "; "),
                                lastReceivedAt: status.lastMessage)
    }
}
