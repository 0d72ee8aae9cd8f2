import HTTPTypes

/// The relay's routes: a handful of fixed paths, some with named segments (`/v1/devices/:device_id`), matched
/// segment by segment when a request's head arrives, so the body is read only as far as its route allows.
struct RelayRouter: Sendable {
    /// Answers a request; nil when the route answers later through the request's responder (a waiting long-poll).
    typealias Handler = @Sendable (RelayRequest) async throws -> RelayResponse?
    /// Tries a request on the connection's event loop before a task is started for `Handler`: for a route whose
    /// commonest request is answered from memory, where the task and its hops would be most of the work.
    typealias ImmediateHandler = @Sendable (RelayRequest) -> ImmediateOutcome

    enum ImmediateOutcome {
        case answered(RelayResponse)
        /// Answered later through the request's responder.
        case waiting
        /// Left to the route's `Handler`.
        case needsHandler
    }

    /// A class: a connection keeps the route of the request it is reading in its state, and a reference is 8 bytes of
    /// that state for as long as the connection is open, where the route itself would be 65.
    final class Route: Sendable {
        let method: HTTPRequest.Method
        let segments: [Substring]
        /// The largest body the route reads; a larger one is refused unread.
        let maxBody: Int
        let immediate: ImmediateHandler?
        let handler: Handler

        init(method: HTTPRequest.Method, segments: [Substring], maxBody: Int, immediate: ImmediateHandler?,
             handler: @escaping Handler) {
            self.method = method
            self.segments = segments
            self.maxBody = maxBody
            self.immediate = immediate
            self.handler = handler
        }
    }

    enum Match {
        case route(Route, parameters: [Substring: Substring])
        case notFound
        case methodNotAllowed(allowed: [HTTPRequest.Method])
    }

    private(set) var routes: [Route] = []

    mutating func add(_ method: HTTPRequest.Method, _ path: String, maxBody: Int = 0, immediate: ImmediateHandler? = nil,
                      _ handler: @escaping Handler) {
        routes.append(Route(method: method, segments: path.split(separator: "/"), maxBody: maxBody, immediate: immediate,
                            handler: handler))
    }

    /// Reads the path as bytes: split by `Character`, two paths a message took a twenty-fifth of the relay's CPU.
    func match(_ method: HTTPRequest.Method, path: String) -> Match {
        let segments = path.utf8.prefix { $0 != UInt8(ascii: "?") }.split(separator: UInt8(ascii: "/"))
        var allowed: [HTTPRequest.Method] = []
        for route in routes {
            guard let parameters = Self.parameters(route.segments, segments) else { continue }
            if route.method == method { return .route(route, parameters: parameters) }
            allowed.append(route.method)
        }
        return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed: allowed)
    }

    private static func parameters(_ pattern: [Substring], _ path: [Substring.UTF8View]) -> [Substring: Substring]? {
        guard pattern.count == path.count,
              zip(pattern, path).allSatisfy({ $0.first == ":" || $0.utf8.elementsEqual($1) }) else { return nil }
        var parameters: [Substring: Substring] = [:]
        for (expected, actual) in zip(pattern, path) where expected.first == ":" {
            parameters[expected.dropFirst()] = Substring(actual)
        }
        return parameters
    }
}
