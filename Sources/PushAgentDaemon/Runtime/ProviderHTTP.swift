import CurlHTTP
import Foundation
import PushAgentCore

/// Sends the requests the core's providers describe and classifies the outcome for retrying.
struct ProviderHTTP: Sendable {
    let http: CurlHTTPClient
    var timeout: Duration = .seconds(15)

    /// A 2xx response, or one whose status is in `passing` (for the caller to act on); other statuses are failures.
    func send(_ request: OutboundRequest, passing: Set<Int> = []) async throws(AnswerFailure) -> HTTPResponse {
        let response: HTTPResponse
        do {
            response = try await http.send(HTTPRequest(
                method: request.method, url: request.url,
                headers: request.headers.map { (name: $0.name, value: $0.value) },
                body: request.body, timeout: timeout, maxResponseBytes: 1 << 20, verifyTLS: request.verifyTLS))
        } catch let error as HTTPClientError {
            throw .retryable(error.description)
        } catch {
            throw .retryable("request to \(Self.host(request.url)) was cancelled")
        }
        switch response.status {
        case 200..<300, _ where passing.contains(response.status): return response
        case 408, 429, 500...: throw .retryable("\(Self.host(request.url)) answered HTTP \(response.status)")
        default: throw .rejected("\(Self.host(request.url)) refused (HTTP \(response.status)): \(Self.message(in: response))")
        }
    }

    /// The provider's own words: a JSON `message`/`reason`, else the start of the body.
    static func message(in response: HTTPResponse) -> String {
        if let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any] {
            for key in ["message", "reason", "error_description", "error"] {
                if let text = object[key] as? String, !text.isEmpty { return text }
            }
            // privacyIDEA: {"result": {"status": false, "error": {"message": …}}}
            if let error = (object["result"] as? [String: Any])?["error"] as? [String: Any],
               let text = error["message"] as? String, !text.isEmpty { return text }
        }
        let text = response.text.trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? "no message" : String(text.prefix(200))
    }

    static func host(_ url: String) -> String { URL(string: url)?.host ?? url }
}
