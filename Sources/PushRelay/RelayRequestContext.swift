import Hummingbird
import NIOCore

/// Hummingbird's basic context plus the request's connection, whose closing ends a long-poll waiting on it.
struct RelayRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let connection: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        connection = source.channel
    }
}
