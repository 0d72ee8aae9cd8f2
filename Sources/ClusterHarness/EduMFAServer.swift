import Foundation

/// A real eduMFA server, the privacyIDEA fork (`scripts/edumfa-server.sh`: eduMFA from PyPI, SQLite, poll-only
/// enrollment policies for both of its push token types) on loopback. Its administrator and login calls are
/// privacyIDEA's (`PrivacyIDEAFamilyServer`); it has no presence and no code-to-phone mode.
public final class EduMFAServer: PrivacyIDEAFamilyServer {
    public static let product = "eduMFA"

    /// eduMFA's two push token types.
    public enum TokenType: String, Sendable {
        /// The default: `edumfa-push://edumfa/…` URIs, serials `EDUP…`, endpoint /ttype/edupush.
        case edupush
        /// The legacy privacyIDEA-compatible token: `otpauth://pipush/…` URIs, serials `PIPU…`, endpoint /ttype/push.
        case push
    }

    public let baseURL: String
    public let process: ManagedProcess

    /// Starts the server with its state in `directory`; the first run on a machine also installs eduMFA. eduMFA has
    /// no health endpoint: it is up when its login page (`/`) answers.
    public init(directory: String, readyTimeout: Duration = .seconds(600)) async throws {
        (baseURL, process) = try await Self.start(script: "edumfa-server.sh", healthPath: "/", directory: directory,
                                                  readyTimeout: readyTimeout)
    }

    /// A new push token of `type` for `user` (`/token/init type=edupush|push genkey=1`): its enrollment URI, as the
    /// QR code shows it.
    public func enrollmentURI(user: String, type: TokenType = .edupush) async throws -> String {
        try await enrollmentURI(user: user, tokenType: type.rawValue)
    }
}
