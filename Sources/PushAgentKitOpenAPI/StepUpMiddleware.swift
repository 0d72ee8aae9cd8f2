import Foundation
import HTTPTypes
import OpenAPIRuntime
import PushAgentKit

/// The step-up retrier for clients made by swift-openapi-generator: add it to the client's `middlewares`.
public struct StepUpMiddleware: ClientMiddleware {
    public let retrier: StepUpRetrier
    /// A request body that can be read only once is collected (up to this many bytes) so the retry can send it again.
    public let maximumReplayedBodyBytes: Int

    public init(retrier: StepUpRetrier, maximumReplayedBodyBytes: Int = 2 << 20) {
        self.retrier = retrier
        self.maximumReplayedBodyBytes = maximumReplayedBodyBytes
    }

    public func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let replayable = try await replayable(body)
        return try await retrier.perform(origin: StepUpChallenge.origin(of: baseURL.absoluteString), head: Self.head) { stepUp in
            var request = request
            if let stepUp {
                guard let name = HTTPField.Name(stepUp.name) else { throw StepUpMiddlewareError.badHeaderName(stepUp.name) }
                request.headerFields[name] = stepUp.value
            }
            return try await next(request, replayable, baseURL)
        }
    }

    private func replayable(_ body: HTTPBody?) async throws -> HTTPBody? {
        guard let body, body.iterationBehavior == .single else { return body }
        return HTTPBody(try await ArraySlice(collecting: body, upTo: maximumReplayedBodyBytes))
    }

    private static func head(_ response: (HTTPResponse, HTTPBody?)) -> ResponseHead {
        ResponseHead(status: response.0.status.code, headers: response.0.headerFields.map { ($0.name.rawName, $0.value) })
    }
}

public enum StepUpMiddlewareError: Error, Equatable, CustomStringConvertible {
    case badHeaderName(String)

    public var description: String {
        switch self {
        case .badHeaderName(let name): "'\(name)' is not a valid HTTP header name to carry the step-up token"
        }
    }
}
