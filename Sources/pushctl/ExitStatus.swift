import ArgumentParser
import ControlClient

/// pushctl's exit codes: one table, which `pushctl --help` prints and docs/design.md §5 repeats.
enum ExitStatus {
    static let failure: Int32 = 1
    /// A bad flag or value, also when the daemon finds it (an ambiguous id prefix, a number for a prompt).
    static let usage: Int32 = 2
    static let unreachable: Int32 = 3
    static let notFound: Int32 = 4
    static let conflictOrExpired: Int32 = 5
    static let noSessionBus: Int32 = 6

    static let table = """
        Exit codes: 0 ok; 1 failure (refused, the provider or the daemon failed, a backup file that cannot be \
        restored); 2 usage (a bad flag or value, also when the daemon finds it: an ambiguous id prefix, --number for \
        a prompt, a URI it cannot enroll); 3 daemon unreachable; 4 not found; 5 conflict (already answered) or \
        expired; 6 no session bus (notify without --wait).
        """

    static func forError(_ error: ControlClientError) -> Int32 {
        switch error {
        case .unreachable: unreachable
        case .badResponse: failure
        case .api(_, let error):
            switch error.code {
            case .notFound: notFound
            case .conflict, .expired: conflictOrExpired
            case .invalidArgument: usage
            case .forbidden, .unavailable, .upstream, .busy: failure
            }
        }
    }
}
