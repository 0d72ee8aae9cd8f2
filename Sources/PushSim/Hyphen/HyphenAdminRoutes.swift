import Foundation
import Hummingbird

/// `/sim/hyphen/…`: what the tests, the demo and `pushsim hyphen …` drive the sim with.
struct HyphenAdminRoutes: Sendable {
    let sim: HyphenSim

    func add(to router: Router<BasicRequestContext>) {
        let group = router.group("/sim/hyphen")
        group.post("/users") { request, _ in
            await AdminReply.reply {
                let body = try await JSONReply.decode(SimAdminAPI.HyphenUserRequest.self, from: request, empty: .init())
                return try await sim.createUser(body)
            }
        }
        group.post("/push") { request, _ in
            await AdminReply.reply {
                let body = try await JSONReply.decode(SimAdminAPI.HyphenPushRequest.self, from: request, empty: .init())
                return try await sim.requestApproval(body, now: Date())
            }
        }
        group.post("/push-data") { request, _ in
            await AdminReply.reply {
                let body = try await JSONReply.decode(SimAdminAPI.HyphenPushRequest.self, from: request, empty: .init())
                return try await sim.pushData(body, now: Date())
            }
        }
        for (verb, approve) in [("approve", true), ("deny", false)] {
            group.post(RouterPath(stringLiteral: "/requests/:id/\(verb)")) { request, context in
                await AdminReply.reply {
                    let body = try await JSONReply.decode(SimAdminAPI.HyphenDecision.self, from: request, empty: .init())
                    return try await sim.decide(context.parameters.get("id") ?? "", approve: approve, push: body.push ?? true)
                }
            }
        }
        group.get("/requests") { _, _ in JSONReply.make(.ok, await sim.twoFactorList()) }
        group.get("/transactions") { _, _ in JSONReply.make(.ok, await sim.transactionList()) }
        group.get("/answers") { request, _ in
            await AdminReply.reply {
                let (after, wait) = try AdminReply.cursor(request)
                return SimAdminAPI.HyphenAnswers(answers: await sim.answers.answers(after: after, wait: wait))
            }
        }
    }
}
