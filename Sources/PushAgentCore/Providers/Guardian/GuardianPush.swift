import Foundation

/// Reading a Guardian push: FCM delivers a flat string map (protocols.md §10.3) whose `s` and `l` are
/// JSON objects written as strings. Nothing is signed, so everything read here is only as true as the push says.
public enum GuardianPush {
    /// Whether a push is Guardian's: a transaction token and the enrollment it is for. No other dialect uses
    /// either key (ForgeRock's `c` lives inside its JWT, not in the data map).
    public static func claims(_ data: [String: String]) -> Bool { data["txtkn"] != nil && data["dai"] != nil }

    /// How long a push is answerable after its sign-in started: Guardian's pushes name no expiry and the SDKs
    /// keep none, so this is the agent's own bound (§10.6). An earlier `exp` in a JWT-shaped `txtkn` wins.
    public static let answerWindow: TimeInterval = 5 * 60
    /// Identifiers and tokens longer than this are not what Guardian sends; refusing them keeps the store small.
    static let maximumFieldLength = 4096

    /// The enrollment the push claims to be for, UNVERIFIED (nothing in a Guardian push is): only to find the
    /// account, which `decode` then checks again.
    public static func enrollmentId(_ data: [String: String]) throws(PushRejection) -> String {
        try required(data, "dai", "enrollment id")
    }

    /// The push's fields, checked: `txtkn`, `dai`, `c`, `sh` and `d` required; `txlnkid`, `s`, `l` optional, and
    /// an `s` or `l` that is not the JSON the SDKs read is left out rather than costing the user the sign-in
    /// (Android's rule). A push received after its answer window is refused as expired.
    public static func decode(_ data: [String: String], receivedAt: Date) throws(PushRejection)
        -> GuardianNotification {
        let transactionToken = try required(data, "txtkn", "transaction token")
        let enrollmentId = try required(data, "dai", "enrollment id")
        let challenge = try required(data, "c", "challenge")
        let hostname = try required(data, "sh", "server host")
        let dateText = try required(data, "d", "sign-in time")
        guard let started = GuardianTime.date(dateText) else {
            throw malformed("'d' (sign-in time) is not an ISO 8601 UTC time like 2015-12-17T19:53:31.000Z: "
                + "'\(EnrollmentURIError.excerpt(dateText))'")
        }
        // A clock ahead of ours must not stretch the window.
        let startedAt = min(started, receivedAt)
        var expiresAt = startedAt.addingTimeInterval(answerWindow)
        if let exp = GuardianTime.unverifiedExpiry(ofToken: transactionToken), exp < expiresAt { expiresAt = exp }
        guard receivedAt < expiresAt else {
            throw PushRejection(.expired, "Guardian push expired at \(expiresAt.formatted(.iso8601))")
        }
        let source = data["s"].flatMap { GuardianContextJSON.object($0) }
        return GuardianNotification(
            enrollmentId: enrollmentId, transactionToken: transactionToken, challenge: challenge, startedAt: started,
            expiresAt: expiresAt, hostname: hostname,
            transactionLinkingId: data["txlnkid"].flatMap { $0.isEmpty ? nil : $0 },
            browser: GuardianContextJSON.software(source?["b"]), os: GuardianContextJSON.software(source?["os"]),
            location: data["l"].flatMap { GuardianContextJSON.location($0) })
    }

    private static func required(_ data: [String: String], _ key: String, _ meaning: String)
        throws(PushRejection) -> String {
        guard let value = data[key], !value.isEmpty else { throw malformed("'\(key)' (\(meaning)) is missing") }
        guard value.utf8.count <= maximumFieldLength else {
            throw malformed("'\(key)' (\(meaning)) is longer than \(maximumFieldLength) bytes")
        }
        return value
    }

    private static func malformed(_ problem: String) -> PushRejection {
        PushRejection(.malformed, "Guardian push: \(problem)")
    }
}
