import ClusterHarness
import ControlWire
import Foundation
import PushAgentCore
import PushSim
import Testing

/// Hostile pushes of every dialect through the real relay to the real daemon (pushsim crafts the signed ones): each
/// is refused with its reason and kept in history, or kept within the agent's bounds, and the daemon goes on
/// serving. See docs/reliability.md, "Hostile input".
@Suite(.serialized, .timeLimit(.minutes(3)))
struct HostileInputTests {
    @Test func forgeRockPrivacyIDEAAndUnroutablePushes() async throws {
        try await ForgeRockEndToEndTests.withEnrolledCluster { cluster, sim in
            let token = try #require(try await cluster.client.status().pushToken)
            let cases = try await HostileForgeRockCases(sim: sim).all() + HostilePrivacyIDEACases.all
                + HostileUnroutableCases.all(token: token)
            try await HostileRun(cluster: cluster).check(cases) {
                _ = try await sim.push(.init(message: "forgerock: the good push after the hostile ones"))
                return "forgerock: the good push after the hostile ones"
            }
        }
    }

    @Test func plusAuthPushes() async throws {
        try await PlusAuthEndToEndTests.withEnrolledCluster { cluster, sim in
            let cases = try await HostilePlusAuthCases(sim: sim).all()
            try await HostileRun(cluster: cluster).check(cases) {
                _ = try await sim.plusAuthPush(.init(type: "prompt"))
                return "Sign-in to PushSim"
            }
        }
    }

    @Test func hyphenPushes() async throws {
        try await HyphenEndToEndTests.withSignedInAgent { setup in
            let cases = try await HostileHyphenCases(sim: setup.sim).all()
            try await HostileRun(cluster: setup.cluster).check(cases) {
                _ = try await setup.sim.hyphenPush().id
                return "Allow iPhone 15 Pro"
            }
        }
    }
}
