import Foundation
import Hummingbird

/// `/sim/guardian/…`: what the tests, the demo and `pushsim guardian …` drive the sim with.
struct GuardianAdminRoutes: SimRoutes {
    let sim: GuardianSim

    func add(to router: Router<BasicRequestContext>) {
        let group = router.group("/sim/guardian")
        group.postJSON("/enroll-uri", empty: SimAdminAPI.Guardian.EnrollURIRequest()) { body, _ in
            try await sim.enrollmentURI(body)
        }
        group.postJSON("/push", empty: SimAdminAPI.Guardian.PushRequest()) { body, _ in
            try await sim.push(body, now: Date())
        }
        group.get("/transactions/:id") { request, context in
            await AdminReply.reply {
                let (_, wait) = try AdminReply.cursor(request)
                return try await sim.transaction(context.parameters.get("id") ?? "", wait: wait)
            }
        }
        group.getPage("/resolutions", of: sim.resolutions) { SimAdminAPI.Guardian.ResolutionsResponse(resolutions: $0) }
        group.get("/devices") { _, _ in
            JSONReply.make(.ok, SimAdminAPI.Guardian.DevicesResponse(devices: await sim.deviceList()))
        }
    }
}
