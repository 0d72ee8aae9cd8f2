import Hummingbird

/// One identity provider the sim plays: its IdP endpoints and its admin API under `/sim/<name>/`.
/// Adding a provider adds one role (in its own folder) and one entry in `SimRoles.all`.
protocol SimRole: Sendable {
    /// The actor that holds the provider's state; the role's routes all work on this one instance.
    associatedtype State: SimRoleState
    /// The provider's name, as in `pushsim <name> serve` and `/sim/<name>/`.
    static var name: String { get }
    var sim: State { get }
    init(sim: State)
    init(context: SimRoleContext)
    /// The provider's endpoints and the admin API's, each on the one `sim`.
    var routes: [any SimRoutes] { get }
    func addRoutes(to router: Router<BasicRequestContext>)
    /// Known only once the server listens (the port may be picked by the system); goes into enrollment URIs.
    func setPublicURL(_ url: String) async
}

extension SimRole {
    init(context: SimRoleContext) {
        self.init(sim: State(context: context))
    }

    func addRoutes(to router: Router<BasicRequestContext>) {
        for group in routes { group.add(to: router) }
    }

    func setPublicURL(_ url: String) async { await sim.setPublicURL(url) }
}

/// A group of a role's routes (its provider's endpoints, or its admin API).
protocol SimRoutes: Sendable {
    func add(to router: Router<BasicRequestContext>)
}

/// A role's provider state: made from what every role gets, and told the public URL once the server listens.
protocol SimRoleState: Actor {
    init(context: SimRoleContext)
    var context: SimRoleContext { get }
    /// The base URL agents reach the sim at, without a trailing slash; empty until the server listens.
    var publicURL: String { get set }
}

extension SimRoleState {
    var relay: RelaySender { context.relay }
    var events: SimEvents { context.events }

    func setPublicURL(_ url: String) {
        publicURL = url.trimmingSuffix("/")
    }
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
