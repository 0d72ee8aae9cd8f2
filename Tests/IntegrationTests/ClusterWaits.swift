import ClusterHarness
import ControlWire
import Foundation
import PushAgentCore
import Testing

/// What several end-to-end suites do to, and wait for in, a running cluster.
extension Cluster {
    /// The relay loses its database: stopped, its state directory removed, started again empty. The daemon's device
    /// is unknown to it now, so the daemon must register again.
    func restartRelayWithoutItsDatabase() async throws {
        await relay?.stop()
        try FileManager.default.removeItem(atPath: directory + "/relay")
        try await startRelay()
    }

    /// The push token the daemon holds once it registered again: connected, with a token other than `oldToken`.
    func newPushToken(replacing oldToken: String?) async throws -> String? {
        var newToken: String?
        try await eventually("the daemon registers again and gets a new push token") {
            let status = try await client.status()
            newToken = status.pushToken
            return status.relay.state == .connected && status.pushToken != nil && status.pushToken != oldToken
        }
        return newToken
    }

    /// The first push in history rejected for `reason`, once there is one.
    func rejectedPush(_ reason: PushRejection.Reason) async throws -> RejectedPush {
        var found: RejectedPush?
        try await eventually("a \(reason.rawValue) rejection in history") {
            found = try await client.history().compactMap(\.rejectedPush).first { $0.reason == reason }
            return found != nil
        }
        return try #require(found)
    }
}
