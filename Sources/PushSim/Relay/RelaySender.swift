import CurlHTTP
import Foundation

/// Sends data messages through the relay's FCM HTTP v1-compatible API, as AM sends through FCM.
struct RelaySender: Sendable {
    let relayURL: String
    let project: String
    let senderKey: String

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    func send(token: String, data: [String: String], ttlSeconds: Int) async throws(Failure) {
        let message: [String: Any] = [
            "token": token, "data": data, "android": ["priority": "HIGH", "ttl": "\(ttlSeconds)s"],
        ]
        let url = relayURL.trimmingSuffix("/") + "/v1/projects/\(project)/messages:send"
        let response: HTTPResponse
        do {
            let body = try JSONSerialization.data(withJSONObject: ["message": message], options: [.sortedKeys])
            response = try await CurlHTTPClient.shared.send(HTTPRequest(
                method: "POST", url: url,
                headers: [(name: "Authorization", value: "Bearer \(senderKey)"),
                          (name: "Content-Type", value: "application/json")],
                body: body, timeout: .seconds(15)))
        } catch {
            throw Failure(description: "cannot reach the relay at \(url): \(error)")
        }
        guard response.status == 200 else {
            throw Failure(description: "the relay refused the push: HTTP \(response.status) \(response.text)")
        }
    }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        var text = self
        while text.hasSuffix(suffix) { text.removeLast(suffix.count) }
        return text
    }
}
