import ControlWire
import PushAgentCore

/// What the notifier needs of pushagentd; pushctl gives it the control-API client, so this module stays on the wire
/// types and links no transport.
public protocol ApprovalDaemon: Sendable {
    func events() async throws -> AsyncThrowingStream<ControlEvent, any Error>
    func approvals(state: ApprovalState?) async throws -> [Approval]
    func approval(_ id: String) async throws -> Approval
    /// For an account's mute, after a fraud report.
    func accounts() async throws -> [Account]
    /// For how the daemon verifies the user (`userVerification`).
    func status() async throws -> StatusResponse
    /// Approves or denies, as the notification's button said.
    func answer(_ id: String, _ decision: ApprovalNotification.Decision) async throws -> Approval
}
