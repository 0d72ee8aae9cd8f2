/// Hyphen: its REST and sign endpoints at Hyphen's paths, and a minimal Flow access node under `/flow`.
struct HyphenRole: SimRole {
    static let name = "hyphen"
    let sim: HyphenSim

    var routes: [any SimRoutes] { [HyphenRoutes(sim: sim), FlowAccessRoutes(sim: sim), HyphenAdminRoutes(sim: sim)] }
}
