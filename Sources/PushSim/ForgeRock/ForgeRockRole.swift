import Hummingbird

/// ForgeRock / PingAM push: AM's `/openam/json/push/sns/message` endpoints.
struct ForgeRockRole: SimRole {
    static let name = "forgerock"
    let sim: ForgeRockSim

    func addRoutes(to router: Router<BasicRequestContext>) {
        AMRoutes(sim: sim).add(to: router)
        ForgeRockAdminRoutes(sim: sim).add(to: router)
    }
}
