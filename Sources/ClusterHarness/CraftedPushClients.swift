import CurlHTTP
import Foundation
import PushSim

/// pushsim's crafted-push calls: pushes no provider would send, built from the sim's usual ones.
extension SimClient {
    /// `POST /sim/forgerock/push-claims`.
    public func pushClaims(_ request: SimAdminAPI.ClaimsPushRequest) async throws -> SimAdminAPI.RawPush {
        try await post("/sim/forgerock/push-claims", encoding: request)
    }

    func post<Body: Encodable, Reply: Decodable>(_ path: String, encoding body: Body) async throws -> Reply {
        let response = try await CurlHTTPClient.shared.send(HTTPRequest(
            method: "POST", url: baseURL + path, headers: [(name: "Content-Type", value: "application/json")],
            body: try JSONEncoder().encode(body)))
        return try JSONDecoder().decode(Reply.self, from: try check(response))
    }
}

extension PlusAuthSimClient {
    /// `POST /sim/plusauth/push-claims`.
    public func pushClaims(_ request: SimAdminAPI.ClaimsPushRequest) async throws -> SimAdminAPI.RawPush {
        try await sim.post("/sim/plusauth/push-claims", encoding: request)
    }
}

extension HyphenSimClient {
    /// `POST /sim/hyphen/push-data`: a `2fa-request` push's data, not sent.
    public func pushData(email: String? = nil, expiresIn: Int? = nil) async throws -> SimAdminAPI.RawPush {
        try await SimClient(baseURL: admin.baseURL).post(
            "/sim/hyphen/push-data", encoding: SimAdminAPI.HyphenPushRequest(email: email, expiresIn: expiresIn))
    }
}
