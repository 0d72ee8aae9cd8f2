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

    private static let encoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()

    func send(token: String, data: [String: String], ttlSeconds: Int) async throws(Failure) {
        let send = SendBody(message: .init(token: token, data: data, android: .init(ttl: "\(ttlSeconds)s")))
        let url = relayURL.trimmingSuffix("/") + "/v1/projects/\(project)/messages:send"
        let response: HTTPResponse
        do {
            let body = try Self.encoder.encode(send)
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

/// FCM HTTP v1's send body, typed: `JSONSerialization` of a dictionary of `Any` cost pushsim a sixth of its CPU per push.
private struct SendBody: Encodable {
    struct Message: Encodable {
        struct Android: Encodable {
            var priority = "HIGH"
            var ttl: String
        }

        var token: String
        var data: [String: String]
        var android: Android
    }

    var message: Message
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        var text = self
        while text.hasSuffix(suffix) { text.removeLast(suffix.count) }
        return text
    }
}
