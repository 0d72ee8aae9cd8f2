import Foundation
import Hummingbird

/// `/sim/forgerock/…`: what the demo, the tests and `pushsim forgerock …` drive the sim with.
struct ForgeRockAdminRoutes: Sendable {
    let sim: ForgeRockSim

    func add(to router: Router<BasicRequestContext>) {
        let group = router.group("/sim/forgerock")
        group.post("/enroll-uri") { request, _ in
            await AdminReply.reply {
                let body = try await JSONReply.decode(SimAdminAPI.EnrollURIRequest.self, from: request, empty: .init())
                return SimAdminAPI.EnrollURIResponse(uri: try await sim.enrollmentURI(body))
            }
        }
        group.post("/push") { request, _ in
            await AdminReply.reply {
                let body = try await JSONReply.decode(SimAdminAPI.PushRequest.self, from: request, empty: .init())
                return try await sim.push(body, now: Date())
            }
        }
        group.post("/push-claims") { request, _ in
            await AdminReply.reply {
                let body = try await JSONReply.decode(SimAdminAPI.ClaimsPushRequest.self, from: request, empty: .init())
                return try await sim.pushClaims(body, now: Date())
            }
        }
        group.get("/answers") { request, _ in
            await AdminReply.reply {
                let (after, wait) = try AdminReply.cursor(request)
                return SimAdminAPI.AnswersResponse(answers: await sim.answers.answers(after: after, wait: wait))
            }
        }
        group.post("/outage") { request, _ in
            await AdminReply.reply {
                let body = try await JSONReply.decode(SimAdminAPI.Outage.self, from: request)
                await sim.setDown(body.down)
                return body
            }
        }
        group.get("/registrations") { _, _ in
            JSONReply.make(.ok, SimAdminAPI.RegistrationsResponse(registrations: await sim.registrationList()))
        }
    }
}
