import Foundation
import Hummingbird
import PushAgentCore

/// Hyphen's REST API (protocols.md §3.2), checked as Hyphen would: the app secret and SDK headers on every call,
/// the bearer token where a device acts, and the bodies as the SDKs send them.
struct HyphenRoutes: SimRoutes {
    let sim: HyphenSim

    func add(to router: Router<BasicRequestContext>) {
        router.post("/auth/v1/signup") { request, _ in
            await reply(request, HyphenSignUpBody.self) { body, _ in try await sim.signUp(body) }
        }
        router.post("/auth/v1/signin/2fa") { request, _ in
            await reply(request, HyphenSignIn2FABody.self) { body, _ in try await sim.signIn2FA(body, now: Date()) }
        }
        router.post("/auth/v1/signin/2fa/finish") { request, _ in
            await reply(request, HyphenFinishBody.self) { body, token in try await sim.finish(body, token: token) }
        }
        router.post("/auth/v1/signin/challenge") { request, _ in
            await reply(request, HyphenChallengeBody.self) { body, _ in try await sim.challenge(body, now: Date()) }
        }
        router.post("/auth/v1/signin/challenge/respond") { request, _ in
            await reply(request, HyphenChallengeResponseBody.self) { body, _ in try await sim.respond(body, now: Date()) }
        }
        router.get("/key/v1/keys") { request, _ in
            await reply(request) { token in try await sim.keys(token: token) }
        }
        router.post("/sign/v1/cadence/transaction") { request, _ in
            await reply(request, HyphenSignBody.self) { body, token in try await sim.serverSignature(body, token: token) }
        }
        router.post("/sign/v1/cadence/paymaster") { request, _ in
            await reply(request, HyphenSignBody.self) { body, token in try await sim.paymasterSignature(body, token: token) }
        }
        router.get("/device/v1/2fa/:id") { request, context in
            let id = context.parameters.get("id") ?? ""
            return await reply(request) { token in try await sim.status(of: id, token: token) }
        }
        router.post("/device/v1/2fa/:id/approve") { request, context in
            let id = context.parameters.get("id") ?? ""
            return await reply(request, HyphenApproveBody.self) { body, token in
                try await sim.approve(id, body, token: token, now: Date())
                return [String: String]()
            }
        }
        router.delete("/device/v1/2fa/:id") { request, context in
            let id = context.parameters.get("id") ?? ""
            return await reply(request) { token in
                try await sim.deny(id, token: token, now: Date())
                return [String: String]()
            }
        }
    }

    private func reply<Body: Decodable & Sendable>(
        _ request: Request, _: Body.Type, _ handle: @Sendable (Body, String?) async throws -> some Encodable & Sendable
    ) async -> Response {
        await reply(request) { token in
            let body: Body
            do throws(JSONReply.BadBody) { body = try await JSONReply.decode(Body.self, from: request) }
            catch { throw HyphenFailure.badRequest(error.message) }
            return try await handle(body, token)
        }
    }

    /// Checks the headers, passes the bearer token, and renders a `HyphenFailure` as Hyphen's error body.
    private func reply(_ request: Request, _ handle: @Sendable (String?) async throws -> some Encodable & Sendable) async -> Response {
        do {
            try checkHeaders(request)
            let authorization = request.headers[.authorization] ?? ""
            let token = authorization.hasPrefix("Bearer ") ? String(authorization.dropFirst(7)) : nil
            return JSONReply.make(.ok, try await handle(token))
        } catch {
            let failure = error as? HyphenFailure ?? HyphenFailure(status: 500, message: "\(error)")
            let status = HTTPResponse.Status(code: failure.status)
            return JSONReply.make(status, HyphenErrorBody(statusCode: failure.status, message: failure.message,
                                                          error: status.reasonPhrase))
        }
    }

    private func checkHeaders(_ request: Request) throws(HyphenFailure) {
        func header(_ name: String) -> String? { request.headers.first { $0.name.canonicalName == name }?.value }
        guard header("x-hyphen-app-secret") == sim.appSecret else {
            throw .unauthorized("X-Hyphen-App-Secret is missing or wrong")
        }
        for name in ["x-hyphen-sdk-platform", "x-hyphen-sdk-version"] where (header(name) ?? "").isEmpty {
            throw .badRequest("the \(name) header is missing")
        }
    }
}

/// Hyphen's error body (NestJS style; the SDKs only look for "please sign up" in it).
private struct HyphenErrorBody: Encodable {
    var statusCode: Int
    var message: String
    var error: String
}
