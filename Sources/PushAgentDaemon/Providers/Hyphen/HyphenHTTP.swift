import CurlHTTP
import Foundation
import PushAgentCore

/// Hyphen's and the Flow access node's calls, each named by the step it serves, so a failure says where a
/// multi-step answer stopped ("paymaster signature: api.hyphen.at refused (HTTP 403): …").
struct HyphenHTTP: Sendable {
    let http: ProviderHTTP

    func send(_ request: OutboundRequest, step: String) async throws(AnswerFailure) -> HTTPResponse {
        do {
            return try await http.send(request)
        } catch {
            switch error {
            case .retryable(let cause): throw .retryable("\(step): \(cause)")
            case .rejected(let cause): throw .rejected("\(step): \(cause)")
            }
        }
    }

    func json<Reply: Decodable>(_ request: OutboundRequest, step: String, as _: Reply.Type = Reply.self)
        async throws(AnswerFailure) -> Reply {
        let response = try await send(request, step: step)
        do {
            return try JSONDecoder().decode(Reply.self, from: response.body)
        } catch {
            throw .rejected("\(step): \(ProviderHTTP.host(request.url)) answered something unexpected (\(String(describing: error).prefix(200)))")
        }
    }

    /// A request description that could not be made (a body that does not encode) is a final failure.
    static func build(_ make: () throws -> OutboundRequest) throws(AnswerFailure) -> OutboundRequest {
        do { return try make() } catch { throw .rejected("cannot build a request: \(error)") }
    }
}
