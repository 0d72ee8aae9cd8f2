import Foundation
import Hummingbird

/// A refusal of Guardian's device API, in Auth0's error shape `{"statusCode", "error", "message", "errorCode"}`;
/// the codes are those the SDKs know (Android `GuardianException`) and Auth0's API documents.
struct GuardianFailure: Error {
    var status: Int
    var errorCode: String
    var message: String

    static func badBearer(_ message: String) -> GuardianFailure {
        GuardianFailure(status: 401, errorCode: "invalid_bearer_format", message: message)
    }

    static func invalidToken(_ message: String) -> GuardianFailure {
        GuardianFailure(status: 401, errorCode: "invalid_token", message: message)
    }

    static func invalidBody(_ message: String) -> GuardianFailure {
        GuardianFailure(status: 400, errorCode: "invalid_body", message: message)
    }

    /// Auth0: "the mfa auth transaction is not active or has already expired"; Android's test answers it with 401.
    static func transactionNotFound(_ message: String) -> GuardianFailure {
        GuardianFailure(status: 401, errorCode: "login_transaction_not_found", message: message)
    }

    static func deviceNotFound(_ id: String) -> GuardianFailure {
        GuardianFailure(status: 404, errorCode: "device_account_not_found", message: "no enrolled device account '\(id)'")
    }

    var response: Response {
        JSONReply.make(HTTPResponse.Status(code: status), Body(statusCode: status, error: reasonPhrase, message: message,
                                                               errorCode: errorCode))
    }

    /// `Status(code:)` carries no phrase, and Auth0's `error` is the phrase.
    private var reasonPhrase: String {
        switch status {
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 404: "Not Found"
        case 409: "Conflict"
        default: "Internal Server Error"
        }
    }

    private struct Body: Encodable {
        var statusCode: Int
        var error: String
        var message: String
        var errorCode: String
    }
}
