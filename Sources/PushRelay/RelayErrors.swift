import Foundation
import HTTPTypes
import NIOCore

/// Device-API errors: `{"error": {"code": "...", "message": "..."}}`.
struct DeviceAPIError: Error, Equatable {
    var status: HTTPResponse.Status
    var code: String
    var message: String

    static func notFound(_ message: String) -> Self { .init(status: .notFound, code: "not_found", message: message) }
    static func unauthorized(_ message: String) -> Self { .init(status: .unauthorized, code: "unauthorized", message: message) }
    static func invalidArgument(_ message: String) -> Self { .init(status: .badRequest, code: "invalid_argument", message: message) }
    static func unavailable(_ error: StoreUnavailable) -> Self {
        .init(status: .serviceUnavailable, code: "unavailable",
              message: "the relay's database is not answering, so this request may or may not have taken effect; retry in \(StoreUnavailable.retryAfterSeconds) s")
    }
    static func cursorAhead(_ error: CursorAheadError) -> Self {
        .init(status: .conflict, code: "cursor_ahead", message: "after=\(error.after) is beyond the last message this relay delivered to the device (seq \(error.lastDelivered)): the relay's state is older than the device's (restored from a backup?), so nothing was acknowledged. Poll again with after=0: every message still queued is delivered, and the device recognizes what it already has")
    }

    func response() throws -> RelayResponse {
        try jsonResponse(status, ["error": ["code": code, "message": message]])
    }
}

/// How a sender-API error goes out, and its answer for a store that does not answer (the type: FCMError.swift).
extension FCMError {
    /// FCM's retryable server error: the sender's library backs off and sends again (firebase-admin honours
    /// `Retry-After`). Nothing was stored, so the retry stores the message once.
    static let unavailable = Self(
        httpStatus: 503, status: "UNAVAILABLE",
        message: "The relay's database is not answering, so the message was not stored. Retry in \(StoreUnavailable.retryAfterSeconds) s.",
        errorCode: "UNAVAILABLE")

    private struct Body: Encodable {
        struct Detail: Encodable {
            let type = "type.googleapis.com/google.firebase.fcm.v1.FcmError"
            var errorCode: String
            private enum CodingKeys: String, CodingKey { case type = "@type", errorCode }
        }
        struct Inner: Encodable {
            var code: Int
            var message: String
            var status: String
            var details: [Detail]?
        }
        var error: Inner
    }

    func response() throws -> RelayResponse {
        try jsonResponse(
            HTTPResponse.Status(code: httpStatus),
            Body(error: .init(code: httpStatus, message: message, status: status,
                              details: errorCode.map { [.init(errorCode: $0)] })))
    }
}

/// Token-endpoint errors as RFC 6749 §5.2 and Google's token endpoint give them:
/// `400 {"error": "invalid_grant", "error_description": "..."}`; google-auth shows both fields in its RefreshError.
struct OAuthError: Error, Equatable {
    var error: String
    var description: String

    static func invalidRequest(_ description: String) -> Self { .init(error: "invalid_request", description: description) }
    static func invalidGrant(_ description: String) -> Self { .init(error: "invalid_grant", description: description) }
    static func invalidScope(_ description: String) -> Self { .init(error: "invalid_scope", description: description) }
    static func unsupportedGrantType(_ description: String) -> Self {
        .init(error: "unsupported_grant_type", description: description)
    }
    /// RFC 6749 §4.1.2.1's code for a server that cannot answer now, with 503 as Google's endpoint uses it.
    static let temporarilyUnavailable = Self(
        error: "temporarily_unavailable",
        description: "the relay's database is not answering; retry in \(StoreUnavailable.retryAfterSeconds) s")

    func response() throws -> RelayResponse {
        try jsonResponse(self == .temporarilyUnavailable ? .serviceUnavailable : .badRequest,
                         ["error": error, "error_description": description])
    }
}

/// Every API's error body goes out through here. A 503 says when to come back (RFC 9110 §10.2.3), which FCM's and
/// Google's client libraries honour.
func jsonResponse(_ status: HTTPResponse.Status, _ value: some Encodable) throws -> RelayResponse {
    var headers = HTTPFields()
    headers[.contentType] = "application/json"
    if status == .serviceUnavailable { headers[.retryAfter] = String(StoreUnavailable.retryAfterSeconds) }
    return RelayResponse(status: status, headers: headers, body: try jsonBody(value))
}

func jsonBody(_ value: some Encodable) throws -> ByteBuffer {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return ByteBuffer(bytes: try encoder.encode(value))
}
