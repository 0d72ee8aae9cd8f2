import ControlWire
import Foundation
import PushAgentCore

extension ControlClient {
    /// scrypt takes a moment on the daemon's side; the client's usual timeout is plenty.
    public func backup(passphrase: String) async throws -> BackupResponse {
        try await call("POST", "/v1/backup", body: BackupRequest(passphrase: passphrase))
    }

    public func restore(backup: Data, passphrase: String) async throws -> RestoreResponse {
        try await call("POST", "/v1/restore", body: RestoreRequest(backup: backup, passphrase: passphrase))
    }

    public func mute(account id: String, seconds: Double? = nil) async throws -> Account {
        try await call("POST", "/v1/accounts/\(escape(id))/mute", body: MuteRequest(seconds: seconds))
    }
    public func unmute(account id: String) async throws -> Account {
        try await call("POST", "/v1/accounts/\(escape(id))/unmute")
    }
    /// The approvals it denied, each as far as its answer got within the daemon's `answer_wait_seconds`.
    public func denyAll(account: String? = nil, reason: DenyReason? = nil) async throws -> [Approval] {
        try await (call("POST", "/v1/approvals/deny", body: DenyAllRequest(account: account, reason: reason))
            as ApprovalsResponse).approvals
    }

    public func refresh() async throws -> RefreshResponse { try await call("POST", "/v1/refresh") }
    /// Registers with FCM for `app` (nil: the default app) or reuses its registration, and reports it (docs/fcm.md).
    public func fcmCheck(app: String? = nil) async throws -> FCMCheckResponse {
        try await call("POST", "/v1/fcm/check" + (app.map { "?app=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0) } ?? ""))
    }
}
