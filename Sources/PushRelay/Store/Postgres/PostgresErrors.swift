import PostgresNIO

/// PSQLError's own description hides everything (it may hold query parameters); this shows the server's message,
/// SQLSTATE, the statement's text and where in a function it failed, or the connection error; never a parameter's
/// value, nor the server's detail (which quotes row values, a push token among them).
struct PostgresErrorText {
    let text: String

    /// Any error from postgres-nio; one that is not a PSQLError as itself.
    /// - Parameter statement: the prepared statement's text (postgres-nio leaves it out of a pool's errors).
    init(_ error: any Error, statement: String? = nil) {
        guard let error = error as? PSQLError else {
            text = "\(error)"
            return
        }
        var text: String
        if let message = error.serverInfo?[.message] {
            text = "\(message) (SQLSTATE \(error.serverInfo?[.sqlState] ?? "?"))"
        } else if let underlying = error.underlying {
            text = "\(error.code): \(Self(underlying).text)"
        } else {
            text = "\(error.code)"
        }
        if let context = error.serverInfo?[.locationContext] { text += ", in \(Self.oneLine(context))" }
        if let statement = error.query?.sql ?? statement { text += "; statement: \(Self.oneLine(statement))" }
        self.text = text
    }

    private static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}

extension PSQLError {
    /// Whether a retry, on another connection or a little later, may succeed: the connection broke, the server is
    /// shutting down, starting, recovering or out of connections, it is a standby (a failover in progress), the
    /// transaction lost a serialization race, or a statement or lock timeout the operator set cut it short.
    /// Anything else (a constraint, a bug) fails again.
    var isTransient: Bool {
        switch code {
        case .serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown, .poolClosed,
             .queryCancelled:
            return true
        case .server:
            guard let state = serverInfo?[.sqlState] else { return false }
            return state.hasPrefix("08") || state.hasPrefix("53") || state.hasPrefix("57P")
                || ["40001", "40P01", "25006", "55P03", "57014"].contains(state)
        default:
            return false
        }
    }
}

/// A database operation failed outside a request (migrating, sweeping): says what, where, and why.
struct PostgresFailure: Error, CustomStringConvertible {
    var settings: PostgresSettings
    var doing: String
    var error: any Error

    var description: String {
        let reason = PostgresErrorText(error).text
        return "PostgreSQL at \(settings.endpoint) (database \(settings.database)): \(doing) failed: \(reason)"
    }
}
