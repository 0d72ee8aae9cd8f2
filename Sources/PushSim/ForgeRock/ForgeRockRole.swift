/// ForgeRock / PingAM push: AM's `/openam/json/push/sns/message` endpoints.
struct ForgeRockRole: SimRole {
    static let name = "forgerock"
    let sim: ForgeRockSim

    var routes: [any SimRoutes] { [AMRoutes(sim: sim), ForgeRockAdminRoutes(sim: sim)] }
}
