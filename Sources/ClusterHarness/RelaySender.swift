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
        _ = try await deliver(token: token, data: data)
    }

    /// Sends like `send` and returns the relay's message id (the `relay_message_id` of a rejection in history).
    public func deliver(token: String, data: [String: String]) async throws -> String {
        let response = try await post(token: token, data: data)
        guard response.status == 200 else { throw HarnessError("relay send failed: HTTP \(response.status) \(response.text)") }
        struct Reply: Decodable { var name: String }
        let name = try JSONDecoder().decode(Reply.self, from: response.body).name
        return String(name.split(separator: "/").last ?? "")
    }

    /// The relay's reply as it is, refusals included.
    public func post(token: String, data: [String: String]) async throws -> HTTPResponse {
        try await post(body: try JSONSerialization.data(withJSONObject: ["message": ["token": token, "data": data]]))
    }

    /// A send request with any body, even one no JSON encoder would write (invalid UTF-8, lone surrogates).
    public func post(body: Data) async throws -> HTTPResponse {
        try await CurlHTTPClient.shared.send(HTTPRequest(
            method: "POST", url: "\(baseURL)/v1/projects/\(project)/messages:send",
            headers: [(name: "Authorization", value: "Bearer \(key)"), (name: "Content-Type", value: "application/json")],
            body: body))
    }
}
