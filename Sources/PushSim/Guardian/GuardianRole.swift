/// Auth0 Guardian: its device API (enroll, resolve-transaction, device-accounts) and unsigned FCM pushes.
struct GuardianRole: SimRole {
    static let name = "guardian"
    let sim: GuardianSim

    var routes: [any SimRoutes] { [GuardianRoutes(sim: sim), GuardianAdminRoutes(sim: sim)] }
}
