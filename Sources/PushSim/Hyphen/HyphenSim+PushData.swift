import Foundation
import PushAgentCore

extension HyphenSim {
    /// `POST /sim/hyphen/push-data`: the `2fa-request` data `/sim/hyphen/push` would send, neither sent nor
    /// recorded. Hyphen pushes are unsigned, so a test changes this template as it likes and sends it itself.
    func pushData(_ request: SimAdminAPI.HyphenPushRequest, now: Date) throws(AdminFailure) -> SimAdminAPI.RawPush {
        let status = try newApprovalRequest(request, now: now).status
        do {
            return SimAdminAPI.RawPush(deviceToken: status.request.destDevice.pushToken,
                                       data: try Self.pushData("2fa-request", status))
        } catch {
            throw AdminFailure(status: 500, code: "internal", message: "cannot encode the push: \(error)")
        }
    }
}
