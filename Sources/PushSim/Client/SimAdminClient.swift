import CurlHTTP
import Foundation

/// The admin API from the outside, for the client subcommands (`pushsim forgerock enroll-uri|push|answers`, …).
/// Each role adds its calls in an extension, in its folder.
public struct SimAdminClient: Sendable {
    public let baseURL: String

    public init(baseURL: String) {
        self.baseURL = baseURL.trimmingSuffix("/")
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public func enrollURI(_ request: SimAdminAPI.EnrollURIRequest) async throws(Failure) -> String {
        let reply: SimAdminAPI.EnrollURIResponse = try await send("POST", "/sim/forgerock/enroll-uri", body: request)
        return reply.uri
    }

    public func push(_ request: SimAdminAPI.PushRequest) async throws(Failure) -> SimAdminAPI.PushResponse {
        try await send("POST", "/sim/forgerock/push", body: request)
    }

    public func answers(after: Int, wait: Int) async throws(Failure) -> [SimAdminAPI.Answer] {
        let reply: SimAdminAPI.AnswersResponse = try await send(
            "GET", "/sim/forgerock/answers?after=\(after)&wait=\(wait)", body: String?.none, timeout: wait + 10)
        return reply.answers
    }

    func send<Reply: Decodable>(_ method: String, _ path: String, body: (some Encodable)?,
                                        timeout: Int = 30) async throws(Failure) -> Reply {
        let response: HTTPResponse
        do {
            response = try await CurlHTTPClient.shared.send(HTTPRequest(
                method: method, url: baseURL + path, headers: [(name: "Content-Type", value: "application/json")],
                body: try body.map { try SimAdminAPI.encoder.encode($0) }, timeout: .seconds(timeout)))
        } catch {
            throw Failure(description: "cannot reach pushsim at \(baseURL): \(error)")
        }
        guard response.status == 200 else {
            let message = (try? SimAdminAPI.decoder.decode(SimAdminAPI.ErrorResponse.self, from: response.body))?
                .error.message ?? response.text
            throw Failure(description: "pushsim refused \(method) \(path): HTTP \(response.status): \(message)")
        }
        do {
            return try SimAdminAPI.decoder.decode(Reply.self, from: response.body)
        } catch {
            throw Failure(description: "pushsim sent an unexpected reply to \(path): \(error)")
        }
    }
}
