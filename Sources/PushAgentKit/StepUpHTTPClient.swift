import CurlHTTP
import Foundation

/// `CurlHTTPClient` with the step-up retrier in front: `send` is the client's `send`, challenges answered.
public struct StepUpHTTPClient: Sendable {
    public let http: CurlHTTPClient
    public let retrier: StepUpRetrier

    public init(http: CurlHTTPClient = .shared, retrier: StepUpRetrier) {
        self.http = http
        self.retrier = retrier
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await retrier.perform(origin: StepUpChallenge.origin(of: request.url),
                                  head: { ResponseHead(status: $0.status, headers: $0.headers) }) { stepUp in
            var request = request
            if let stepUp {
                request.headers.removeAll { $0.name.caseInsensitiveCompare(stepUp.name) == .orderedSame }
                request.headers.append((name: stepUp.name, value: stepUp.value))
            }
            return try await http.send(request)
        }
    }
}
