import Foundation
import Hummingbird

/// `/sim/forgerock/…`: what the demo, the tests and `pushsim forgerock …` drive the sim with.
struct ForgeRockAdminRoutes: SimRoutes {
    let sim: ForgeRockSim

    func add(to router: Router<BasicRequestContext>) {
        let group = router.group("/sim/forgerock")
        group.postJSON("/enroll-uri", empty: SimAdminAPI.EnrollURIRequest()) { body, _ in
            SimAdminAPI.EnrollURIResponse(uri: try await sim.enrollmentURI(body))
        }
        group.postJSON("/push", empty: SimAdminAPI.PushRequest()) { body, _ in try await sim.push(body, now: Date()) }
        group.postJSON("/push-claims", empty: SimAdminAPI.ClaimsPushRequest()) { body, _ in
            try await sim.pushClaims(body, now: Date())
        }
        group.getPage("/answers", of: sim.answers) { SimAdminAPI.AnswersResponse(answers: $0) }
        group.postJSON("/outage") { (body: SimAdminAPI.Outage, _) in
            await sim.setDown(body.down)
            return body
        }
        group.get("/registrations") { _, _ in
            JSONReply.make(.ok, SimAdminAPI.RegistrationsResponse(registrations: await sim.registrationList()))
        }
    }
}
