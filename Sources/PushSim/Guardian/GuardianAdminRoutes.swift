import Foundation
import Hummingbird

/// `/sim/guardian/…`: what the tests, the demo and `pushsim guardian …` drive the sim with.
struct GuardianAdminRoutes: Sendable {
    let sim: GuardianSim

    func add(to router: Router<BasicRequestContext>) {
        let group = router.group("/sim/guardian")
        group.post("/enroll-uri") { request, _ in
            await AdminReply.reply {
                let body = try await JSONReply.decode(SimAdminAPI.Guardian.EnrollURIRequest.self, from: request, empty: .init())
                return try await sim.enrollmentURI(body)
            }
        }
        group.post("/push") { request, _ in
            await AdminReply.reply {
                let body = try await JSONReply.decode(SimAdminAPI.Guardian.PushRequest.self, from: request, empty: .init())
                return try await sim.push(body, now: Date())
            }
        }
        group.get("/transactions/:id") { request, context in
            await AdminReply.reply {
                let (_, wait) = try AdminReply.cursor(request)
                return try await sim.transaction(context.parameters.get("id") ?? "", wait: wait)
            }
        }
        group.get("/resolutions") { request, _ in
            await AdminReply.reply {
                let (after, wait) = try AdminReply.cursor(request)
                return SimAdminAPI.Guardian.ResolutionsResponse(
                    resolutions: await sim.resolutions.answers(after: after, wait: wait))
            }
        }
        group.get("/devices") { _, _ in
            JSONReply.make(.ok, SimAdminAPI.Guardian.DevicesResponse(devices: await sim.deviceList()))
        }
    }
}
