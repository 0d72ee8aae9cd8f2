import Hummingbird
import NIOCore

/// Hummingbird's basic request context plus the request's connection: the control socket asks it who is calling
/// (SO_PEERCRED), and the relay ends a waiting long-poll when it closes.
public struct ConnectionContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
