import Hummingbird

/// Hyphen: its REST and sign endpoints at Hyphen's paths, and a minimal Flow access node under `/flow`.
struct HyphenRole: SimRole {
    static let name = "hyphen"
    let sim: HyphenSim

    func addRoutes(to router: Router<BasicRequestContext>) {
        HyphenRoutes(sim: sim).add(to: router)
        FlowAccessRoutes(sim: sim).add(to: router)
        HyphenAdminRoutes(sim: sim).add(to: router)
    }
}
