/// PlusAuth's push authenticator ("AuthPlus"): enroll and resolve endpoints, contexts signed with the uploaded keys.
struct PlusAuthRole: SimRole {
    static let name = "plusauth"
    let sim: PlusAuthSim

    var routes: [any SimRoutes] { [PlusAuthRoutes(sim: sim), PlusAuthAdminRoutes(sim: sim)] }
}
