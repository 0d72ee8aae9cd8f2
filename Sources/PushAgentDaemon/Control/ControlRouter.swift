import Hummingbird
import Logging

/// The control API (docs/design.md §4, docs/control-api.md): one route collection per resource, each mounted on the
/// `/v1` group, behind the middleware that refuses browsers and renders every error at one edge.
struct ControlRouter {
    let collections: [any ControlRouteCollection]
    let modules: ProviderModules
    let writers: Writers

    func build(logger: Logger) -> Router<PeerContext> {
        let router = Router(context: PeerContext.self)
        router.add(middleware: ControlMiddleware(logger: logger))
        let v1 = router.group("v1")
        for collection in collections { collection.addRoutes(to: v1) }
        for module in modules.all { module.addRoutes(to: v1, writers: writers) }
        return router
    }
}

/// The routes of one resource.
protocol ControlRouteCollection: Sendable {
    func addRoutes(to v1: RouterGroup<PeerContext>)
}
