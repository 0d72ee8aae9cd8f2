import Foundation
import Hummingbird
import PushAgentCore

/// PlusAuth's push-authenticator endpoints: enroll, and resolve under both documented paths.
struct PlusAuthRoutes: SimRoutes {
    let sim: PlusAuthSim

    func add(to router: Router<BasicRequestContext>) {
        router.post(RouterPath(stringLiteral: PlusAuthSim.enrollPath)) { request, _ in
            await Self.reply {
                let body = try await JSONReply.decode(PlusAuthEnrollmentBody.self, from: request)
                try await sim.enroll(bearer: Self.bearer(of: request), body: body, now: Date())
            }
        }
        for path in [PlusAuthSim.resolvePath, PlusAuthSim.resolveChallengePath] {
            router.post(RouterPath(stringLiteral: path)) { request, _ in
                await Self.reply {
                    let body = try await JSONReply.decode(PlusAuthResolveBody.self, from: request)
                    try await sim.resolve(endpoint: path, bearer: Self.bearer(of: request), body: body, now: Date())
                }
            }
        }
    }

    private static func bearer(of request: Request) -> String? {
        guard let value = request.headers[.authorization], value.lowercased().hasPrefix("bearer ") else { return nil }
        return String(value.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces)
    }

    /// 200 `{}`, or the refusal as `{"error", "message"}` with its status.
    private static func reply(_ body: () async throws -> Void) async -> Response {
        let refusal: AdminFailure
        do {
            try await body()
            return JSONReply.make(.ok, [String: String]())
        } catch let known as AdminFailure {
            refusal = known
        } catch let bad as JSONReply.BadBody {
            refusal = .invalidRequest(bad.message)
        } catch {
            refusal = AdminFailure(status: 500, code: "server_error", message: "\(error)")
        }
        return JSONReply.make(.init(code: refusal.status), ["error": refusal.code, "message": refusal.message])
    }
}

/// `/sim/plusauth/…`: what the tests and `pushsim plusauth …` drive the sim with.
struct PlusAuthAdminRoutes: SimRoutes {
    let sim: PlusAuthSim

    func add(to router: Router<BasicRequestContext>) {
        let group = router.group("/sim/plusauth")
        group.postJSON("/enroll-uri", empty: SimAdminAPI.PlusAuth.EnrollURIRequest()) { body, _ in
            SimAdminAPI.EnrollURIResponse(uri: try await sim.enrollmentURI(body))
        }
        group.postJSON("/push", empty: SimAdminAPI.PlusAuth.PushRequest()) { body, _ in try await sim.push(body, now: Date()) }
        group.postJSON("/push-claims", empty: SimAdminAPI.ClaimsPushRequest()) { body, _ in
            try await sim.pushClaims(body, now: Date())
        }
        group.getPage("/answers", of: sim.answers) { SimAdminAPI.PlusAuth.AnswersResponse(answers: $0) }
        group.get("/registrations") { _, _ in
            JSONReply.make(.ok, SimAdminAPI.PlusAuth.RegistrationsResponse(registrations: await sim.registrationList()))
        }
    }
}
