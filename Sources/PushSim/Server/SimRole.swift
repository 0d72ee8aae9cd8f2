import Hummingbird

/// One identity provider the sim plays: its IdP endpoints and its admin API under `/sim/<name>/`.
/// Adding a provider adds one role (in its own folder) and one entry in `SimRoles.all`.
protocol SimRole: Sendable {
    /// The provider's name, as in `pushsim <name> serve` and `/sim/<name>/`.
    static var name: String { get }
    init(context: SimRoleContext)
    func addRoutes(to router: Router<BasicRequestContext>)
    /// Known only once the server listens (the port may be picked by the system); goes into enrollment URIs.
    func setPublicURL(_ url: String) async
}

/// What every role gets: the relay to send pushes through and the event lines on stdout.
struct SimRoleContext: Sendable {
    let relay: RelaySender
    let events: SimEvents
}

enum SimRoles {
    static let all: [any SimRole.Type] = [ForgeRockRole.self, PlusAuthRole.self, HyphenRole.self, GuardianRole.self]

    static var names: [String] { all.map { $0.name } }
}
