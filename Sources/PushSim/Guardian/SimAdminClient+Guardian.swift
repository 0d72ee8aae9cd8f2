import Foundation

/// The Guardian role's admin API, for `pushsim guardian …` and the tests.
extension SimAdminClient {
    public func guardianEnrollURI(_ request: SimAdminAPI.Guardian.EnrollURIRequest) async throws(Failure)
        -> SimAdminAPI.Guardian.EnrollURIResponse {
        try await send("POST", "/sim/guardian/enroll-uri", body: request)
    }

    public func guardianPush(_ request: SimAdminAPI.Guardian.PushRequest) async throws(Failure)
        -> SimAdminAPI.Guardian.PushResponse {
        try await send("POST", "/sim/guardian/push", body: request)
    }

    /// With `wait` > 0, answers once the transaction is no longer pending or after that many seconds (at most 60).
    public func guardianTransaction(_ id: String, wait: Int = 0) async throws(Failure) -> SimAdminAPI.Guardian.Transaction {
        let escaped = id.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(.init(charactersIn: "-_."))) ?? id
        return try await send("GET", "/sim/guardian/transactions/\(escaped)?wait=\(wait)", body: String?.none,
                              timeout: wait + 10)
    }

    /// Every resolve-transaction call after `after`, refused ones and unknown bearers included.
    public func guardianResolutions(after: Int, wait: Int) async throws(Failure) -> [SimAdminAPI.Guardian.Resolution] {
        let reply: SimAdminAPI.Guardian.ResolutionsResponse = try await page(
            "/sim/guardian/resolutions", after: after, wait: wait)
        return reply.resolutions
    }

    public func guardianDevices() async throws(Failure) -> [SimAdminAPI.Guardian.Device] {
        let reply: SimAdminAPI.Guardian.DevicesResponse = try await send("GET", "/sim/guardian/devices", body: String?.none)
        return reply.devices
    }
}
