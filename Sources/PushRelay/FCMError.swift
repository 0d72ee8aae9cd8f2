/// Sender-API errors in the shape of Google APIs / FCM HTTP v1, so FCM client libraries classify them:
/// `{"error": {"code": 400, "message": "...", "status": "INVALID_ARGUMENT", "details": [FcmError]}}`.
///
/// A file of its own, importing nothing, so the fuzz target of the send parser compiles it too
/// (Fuzz/Sources/RelaySendBody); how an error goes out, and the answer that needs the store, are in RelayErrors.swift.
struct FCMError: Error, Equatable {
    var httpStatus: Int
    var status: String
    var message: String
    /// The FcmError detail's `errorCode`. Google's authentication errors carry no FcmError detail, so
    /// neither do ours.
    var errorCode: String?

    static func invalidArgument(_ message: String) -> Self {
        .init(httpStatus: 400, status: "INVALID_ARGUMENT", message: message, errorCode: "INVALID_ARGUMENT")
    }

    static let unregistered = Self(
        httpStatus: 404, status: "NOT_FOUND", message: "Requested entity was not found.", errorCode: "UNREGISTERED")

    /// FCM's answer when a device has too many messages waiting (`QUOTA_EXCEEDED`, retry later).
    static func quotaExceeded(_ message: String) -> Self {
        .init(httpStatus: 429, status: "RESOURCE_EXHAUSTED", message: message, errorCode: "QUOTA_EXCEEDED")
    }

    /// FCM's own code for a server error it cannot explain further; it is no 503, which promises nothing was stored.
    static let outcomeUnknown = Self(
        httpStatus: 500, status: "INTERNAL",
        message: "The relay's database took the message but its answer was lost, so the message may or may not have been stored: a retry may deliver it twice.",
        errorCode: "INTERNAL")

    static func unauthenticated(_ message: String) -> Self {
        .init(httpStatus: 401, status: "UNAUTHENTICATED", message: message, errorCode: nil)
    }

    static func permissionDenied(project: String) -> Self {
        .init(httpStatus: 403, status: "PERMISSION_DENIED",
              message: "Permission 'cloudmessaging.messages.create' denied on resource 'projects/\(project)'.",
              errorCode: nil)
    }
}
