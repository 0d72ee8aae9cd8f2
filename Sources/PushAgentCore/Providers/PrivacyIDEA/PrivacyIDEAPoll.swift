import Foundation

/// The device's own calls besides answers (protocols.md §4.5): polling for open challenges and telling the server a
/// new push token. Both are signed over a timestamp the server accepts only near its own clock.
public enum PrivacyIDEAPoll {
    /// `GET <url>?serial&timestamp&signature`, signature over `serial|timestamp`.
    public static func request(credentials: PrivacyIDEACredentials, at now: Date) throws -> OutboundRequest {
        let timestamp = PrivacyIDEAHTTP.timestamp(now)
        let signature = try credentials.deviceKey().sign(PrivacyIDEASignText.poll(serial: credentials.serial, timestamp: timestamp))
        return PrivacyIDEAHTTP.get(credentials.url, [
            ("serial", credentials.serial), ("timestamp", timestamp), ("signature", signature),
        ], verifyTLS: credentials.sslVerify)
    }

    /// The open challenges of a poll's answer, each still to be verified like a pushed one.
    public static func challenges(from body: Data) throws(PrivacyIDEAReplyError) -> [[String: String]] {
        try PrivacyIDEAResponse<[[String: String]]>.value(from: body, what: "poll")
    }

    /// `POST <url>` with `new_fb_token`, `serial`, `timestamp`, signature over `new_fb_token|serial|timestamp`.
    public static func tokenUpdateRequest(credentials: PrivacyIDEACredentials, newToken: String, at now: Date) throws
        -> OutboundRequest {
        let timestamp = PrivacyIDEAHTTP.timestamp(now)
        let signature = try credentials.deviceKey().sign(
            PrivacyIDEASignText.tokenUpdate(newToken: newToken, serial: credentials.serial, timestamp: timestamp))
        return PrivacyIDEAHTTP.post(to: credentials.url, [
            ("new_fb_token", newToken), ("serial", credentials.serial), ("timestamp", timestamp), ("signature", signature),
        ], verifyTLS: credentials.sslVerify)
    }

    /// A token update or an answer succeeded only when `result.value` is true.
    public static func confirmed(_ body: Data, what: String) throws(PrivacyIDEAReplyError) {
        guard try PrivacyIDEAResponse<Bool>.value(from: body, what: what) else {
            throw .refused("\(what): privacyIDEA did not accept it (result.value is false)")
        }
    }
}
