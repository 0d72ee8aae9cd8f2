import Hummingbird

/// Auth0 Guardian: its device API (enroll, resolve-transaction, device-accounts) and unsigned FCM pushes.
struct GuardianRole: SimRole {
    static let name = "guardian"
    let sim: GuardianSim

    func addRoutes(to router: Router<BasicRequestContext>) {
        GuardianRoutes(sim: sim).add(to: router)
        GuardianAdminRoutes(sim: sim).add(to: router)
    }
}
