import ControlWire
import Foundation
import PushAgentCore

extension ControlClient {
    public func requests() async throws -> [TwoFactorRequest] {
        try await (get("/v1/requests") as RequestsResponse).requests
    }

    /// The request; with `wait`, once it is final or after that many seconds (at most 60), whichever comes first.
    public func request(_ id: String, wait: Int = 0) async throws -> TwoFactorRequest {
        let seconds = min(max(wait, 0), RequestsResponse.maximumWait)
        // The daemon holds the call up to `wait`: the client must wait longer than that.
        let patient = ControlClient(socketPath: socketPath, searched: searched, timeout: .seconds(seconds + 15))
        return try await patient.get("/v1/requests/\(escape(id))?wait=\(seconds)")
    }
}
