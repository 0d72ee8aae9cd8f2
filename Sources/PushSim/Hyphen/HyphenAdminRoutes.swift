import Foundation
import Hummingbird

/// `/sim/hyphen/…`: what the tests, the demo and `pushsim hyphen …` drive the sim with.
struct HyphenAdminRoutes: SimRoutes {
    let sim: HyphenSim

    func add(to router: Router<BasicRequestContext>) {
        let group = router.group("/sim/hyphen")
        group.postJSON("/users", empty: SimAdminAPI.HyphenUserRequest()) { body, _ in try await sim.createUser(body) }
        group.postJSON("/push", empty: SimAdminAPI.HyphenPushRequest()) { body, _ in
            try await sim.requestApproval(body, now: Date())
        }
        group.postJSON("/push-data", empty: SimAdminAPI.HyphenPushRequest()) { body, _ in
            try await sim.pushData(body, now: Date())
        }
        for (verb, approve) in [("approve", true), ("deny", false)] {
            group.postJSON(RouterPath(stringLiteral: "/requests/:id/\(verb)"),
                           empty: SimAdminAPI.HyphenDecision()) { body, context in
                try await sim.decide(context.parameters.get("id") ?? "", approve: approve, push: body.push ?? true)
            }
        }
        group.get("/requests") { _, _ in JSONReply.make(.ok, await sim.twoFactorList()) }
        group.get("/transactions") { _, _ in JSONReply.make(.ok, await sim.transactionList()) }
        group.getPage("/answers", of: sim.answers) { SimAdminAPI.HyphenAnswers(answers: $0) }
    }
}
