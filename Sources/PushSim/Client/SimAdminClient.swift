import CurlHTTP
import Foundation

/// The admin API from the outside, for the client subcommands (`pushsim forgerock enroll-uri|push|answers`, …), the
/// cluster harness, pushsoak, pushbench and the integration tests. Each role adds its calls in an extension, in its folder.
public struct SimAdminClient: Sendable {
    public let baseURL: String

    public init(baseURL: String) {
        self.baseURL = baseURL.trimmingSuffix("/")
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// One page of a role's log (`answers`, `resolutions`, …) after `after`, waiting up to `wait` seconds for one.
    func page<Reply: Decodable>(_ path: String, after: Int, wait: Int) async throws(Failure) -> Reply {
        try await send("GET", "\(path)?after=\(after)&wait=\(wait)", body: String?.none, timeout: wait + 10)
    }

    /// Long-polls `look` (which waits up to `wait` seconds for something new) until it finds something or `timeout`
    /// seconds pass; the last look starts after the deadline, and does not wait.
    func longPolling<T>(for timeout: Int, _ what: String,
                        _ look: (_ wait: Int) async throws(Failure) -> T?) async throws(Failure) -> T {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while true {
            let last = ContinuousClock.now >= deadline
            if let found = try await look(last ? 0 : 1) { return found }
            if last { throw Failure(description: "pushsim received no \(what) within \(timeout) s") }
        }
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
