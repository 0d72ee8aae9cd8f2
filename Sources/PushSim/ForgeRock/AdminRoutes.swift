import Foundation
import Hummingbird

/// `/sim/forgerock/…`: what the demo, the tests and `pushsim forgerock …` drive the sim with.
struct AdminRoutes: Sendable {
    let sim: ForgeRockSim
    /// Long-polls are capped like the relay's, so a client cannot hold a request open indefinitely.
    static let maximumWait = 60

    func add(to router: Router<BasicRequestContext>) {
        let group = router.group("/sim/forgerock")
        group.post("/enroll-uri") { request, _ in
            await Self.reply {
                let body = try await JSONReply.decode(SimAdminAPI.EnrollURIRequest.self, from: request, empty: .init())
                return SimAdminAPI.EnrollURIResponse(uri: try await sim.enrollmentURI(body))
            }
        }
        group.post("/push") { request, _ in
            await Self.reply {
                let body = try await JSONReply.decode(SimAdminAPI.PushRequest.self, from: request, empty: .init())
                return try await sim.push(body, now: Date())
            }
        }
        group.get("/answers") { request, _ in
            await Self.reply {
                let query = request.uri.queryParameters
                let after = try Self.integer(query["after"], name: "after") ?? 0
                let wait = min(try Self.integer(query["wait"], name: "wait") ?? 0, Self.maximumWait)
                return SimAdminAPI.AnswersResponse(answers: await sim.answers.answers(after: after, wait: .seconds(wait)))
            }
        }
        group.get("/registrations") { _, _ in
            JSONReply.make(.ok, SimAdminAPI.RegistrationsResponse(registrations: await sim.registrationList()))
        }
    }

    private static func integer(_ value: Substring?, name: String) throws -> Int? {
        guard let value else { return nil }
        guard let number = Int(value), number >= 0 else {
            throw ForgeRockSim.AdminFailure(status: 400, code: "invalid_argument",
                                            message: "'\(name)' must be a non-negative whole number")
        }
        return number
    }

    private static func reply(_ body: () async throws -> some Encodable) async -> Response {
        do {
            return JSONReply.make(.ok, try await body())
        } catch let failure as ForgeRockSim.AdminFailure {
            return JSONReply.error(failure.status, code: failure.code, failure.message)
        } catch let bad as JSONReply.BadBody {
            return JSONReply.error(400, code: "invalid_argument", bad.message)
        } catch {
            return JSONReply.error(500, code: "internal", "\(error)")
        }
    }
}
