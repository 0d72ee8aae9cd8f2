import Foundation
import HTTPTestSupport
import Hummingbird

/// A real HTTP server in the test process that protects its endpoints with step-up challenges and counts what it
/// saw. (Kept apart from the client tests: Hummingbird exports its own HTTPRequest/HTTPResponse.)
final class ChallengeServer: Sendable {
    /// What the server saw, for the tests' assertions.
    actor Log {
        private(set) var challenged = 0
        private(set) var accepted = 0
        private(set) var bodies: [String] = []

        func challenge() { challenged += 1 }
        func accept(body: String?) {
            accepted += 1
            if let body { bodies.append(body) }
        }
    }

    static let code = "246810"
    let log: Log
    let port: Int

    private init(port: Int, log: Log) {
        self.port = port
        self.log = log
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Runs `body` with a server listening on 127.0.0.1, then stops it (also when `body` throws).
    static func with<T: Sendable>(_ body: (ChallengeServer) async throws -> T) async throws -> T {
        let log = Log()
        return try await InProcessServer.with(router(log), address: .hostname("127.0.0.1", port: 0),
                                              label: "PushAgentKitTests.server") { port in
            try await body(ChallengeServer(port: port, log: log))
        }
    }

    private static func router(_ log: Log) -> Router<BasicRequestContext> {
        let router = Router()
        // GitHub-style: the right code in X-GitHub-OTP, or `401` + `X-GitHub-OTP: required; app`.
        router.get("/otp") { request, _ in await otp(request, log: log) }
        router.post("/otp") { request, _ in
            var request = request
            let body = String(buffer: try await request.collectBody(upTo: 1 << 20))
            return await otp(request, log: log, body: body)
        }
        // RFC 9470: a bearer token, or the step-up challenge (both the RFC's demands at once).
        router.get("/bearer") { request, _ in
            if request.headers[.authorization] == "Bearer \(code)" {
                await log.accept(body: nil)
                return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "stepped up")))
            }
            await log.challenge()
            return Response(status: .unauthorized, headers: [.wwwAuthenticate: #"Bearer error="insufficient_user_authentication", error_description="More recent authentication is required", acr_values="mfa hwk", max_age="5""#])
        }
        // A server that never accepts: the retrier must give up after its one retry.
        router.get("/always") { _, _ in
            await log.challenge()
            return Response(status: .unauthorized, headers: [.init("X-GitHub-OTP")!: "required; app"])
        }
        return router
    }

    private static func otp(_ request: Request, log: Log, body: String? = nil) async -> Response {
        if request.headers[.init("X-GitHub-OTP")!] == code {
            await log.accept(body: body)
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: body ?? "protected")))
        }
        await log.challenge()
        return Response(status: .unauthorized, headers: [.init("X-GitHub-OTP")!: "required; app"],
                        body: .init(byteBuffer: ByteBuffer(string: #"{"message":"Must specify two-factor authentication OTP code."}"#)))
    }
}
