import Hummingbird

/// PlusAuth's push authenticator ("AuthPlus"): enroll and resolve endpoints, contexts signed with the uploaded keys.
struct PlusAuthRole: SimRole {
    static let name = "plusauth"
    let sim: PlusAuthSim

    func addRoutes(to router: Router<BasicRequestContext>) {
        PlusAuthRoutes(sim: sim).add(to: router)
        PlusAuthAdminRoutes(sim: sim).add(to: router)
    }
}
