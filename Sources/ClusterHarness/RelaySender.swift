import CurlHTTP
import Foundation

/// Sends raw pushes through the relay's FCM-compatible API, for pushes no provider would send (tests, benchmark).
public struct RelaySender: Sendable {
    public let baseURL: String
    public let project: String
    public let key: String

    public init(baseURL: String, project: String, key: String) {
        self.baseURL = baseURL
        self.project = project
        self.key = key
    }

    public func send(token: String, data: [String: String]) async throws {
        let body = try JSONSerialization.data(withJSONObject: ["message": ["token": token, "data": data]])
        let response = try await CurlHTTPClient.shared.send(HTTPRequest(
            method: "POST", url: "\(baseURL)/v1/projects/\(project)/messages:send",
            headers: [(name: "Authorization", value: "Bearer \(key)"), (name: "Content-Type", value: "application/json")],
            body: body))
        guard response.status == 200 else { throw HarnessError("relay send failed: HTTP \(response.status) \(response.text)") }
    }
}
