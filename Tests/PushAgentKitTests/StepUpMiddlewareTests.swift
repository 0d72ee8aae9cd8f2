import CurlHTTP
import Foundation
import HTTPTypes
import OpenAPIRuntime
import PushAgentKit
import PushAgentKitOpenAPI
import Testing

/// The OpenAPI adapter as a generated client calls it: middleware → transport (here over CurlHTTP) → real server.
struct StepUpMiddlewareTests {
    /// A minimal ClientTransport over the project's HTTP client.
    struct CurlTransport: ClientTransport {
        func send(_ request: HTTPTypes.HTTPRequest, body: HTTPBody?, baseURL: URL,
                  operationID: String) async throws -> (HTTPTypes.HTTPResponse, HTTPBody?) {
            var bytes: Data?
            if let body { bytes = try await Data(collecting: body, upTo: 1 << 20) }
            let response = try await CurlHTTPClient.shared.send(CurlHTTP.HTTPRequest(
                method: request.method.rawValue, url: baseURL.absoluteString + (request.path ?? ""),
                headers: request.headerFields.map { (name: $0.name.rawName, value: $0.value) }, body: bytes))
            var fields = HTTPFields()
            for header in response.headers { if let name = HTTPField.Name(header.name) { fields.append(HTTPField(name: name, value: header.value)) } }
            return (HTTPTypes.HTTPResponse(status: .init(code: response.status), headerFields: fields), HTTPBody(response.body))
        }
    }

    @Test func aChallengedOperationIsRetriedWithItsBodyAndTheToken() async throws {
        try await ChallengeServer.with { server in
            let flow = ImmediateFlow { StepUpToken(ChallengeServer.code) }
            let middleware = StepUpMiddleware(retrier: StepUpRetrier(triggers: [GitHubOTPTrigger()], flow: flow))
            let transport = CurlTransport()
            // A streamed body can be read once: the middleware keeps it for the retry.
            let (stream, continuation) = AsyncStream.makeStream(of: HTTPBody.ByteChunk.self)
            continuation.yield(ArraySlice("{\"transfer\": 42}".utf8))
            continuation.finish()
            let (response, body) = try await middleware.intercept(
                HTTPTypes.HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/otp"),
                body: HTTPBody(stream, length: .unknown), baseURL: try #require(URL(string: server.baseURL)),
                operationID: "transfer",
                next: { try await transport.send($0, body: $1, baseURL: $2, operationID: "transfer") })
            #expect(response.status == .ok)
            let text = try await String(collecting: try #require(body), upTo: 1024)
            #expect(text == "{\"transfer\": 42}")
            #expect(await server.log.challenged == 1)
            #expect(await server.log.bodies == ["{\"transfer\": 42}"], "the retry carried the same body")
        }
    }
}
