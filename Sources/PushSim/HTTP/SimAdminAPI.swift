import Foundation

/// The admin API's JSON (snake_case), shared by the server and `pushsim`'s client subcommands. Each role adds its
/// own types in an extension, in its folder.
public enum SimAdminAPI {
    /// `{"error": {"code", "message"}}`, the project's error shape.
    public struct ErrorResponse: Codable, Sendable {
        public struct Detail: Codable, Sendable {
            public var code: String
            public var message: String
        }
        public var error: Detail
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()
}

/// An `enroll-uri` request's account and issuer, which every role defaults and checks alike.
protocol EnrollmentLabelRequest {
    var account: String? { get }
    var issuer: String? { get }
}

extension EnrollmentLabelRequest {
    /// The account (default `alice`) and the issuer (default `PushSim`); neither may be empty.
    func label() throws(AdminFailure) -> (account: String, issuer: String) {
        let account = account ?? "alice"
        let issuer = issuer ?? "PushSim"
        guard !account.isEmpty, !issuer.isEmpty else { throw .invalidArgument("account and issuer must not be empty") }
        return (account, issuer)
    }
}
