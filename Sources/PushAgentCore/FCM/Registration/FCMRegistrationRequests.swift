import Foundation

/// The HTTP requests of registration after check-in, and the reading of their replies: GCM registration (a token
/// for this device and app), a Firebase installation (FID and its auth token), and the FCM registration that binds
/// the web-push keys and yields the token providers send to.
public struct FCMRegistrationRequests: Sendable {
    public let endpoints: FCMEndpoints
    public let app: FirebaseAppProfile

    /// What firebase-messaging and the FCM web SDK send as their client identity.
    static let sdkVersion = "w:0.6.6"
    static let authVersion = "FIS_v2"
    /// The key GCM registers web-push senders under when an app has no VAPID key of its own.
    public static let defaultSenderKey = "BDOU99-h67HcA6JeFXHbSNMu7e2yNNu3RzoMj8TM4W88jITfq7ZmPvIM1Iv-4_l2LxQcYwhqby2xGpWwzjfAnG4"

    public init(endpoints: FCMEndpoints, app: FirebaseAppProfile) {
        self.endpoints = endpoints
        self.app = app
    }

    /// `subtype` is this registration's app instance (`wp:<bundle>#<uuid>`); data messages carry it back.
    public func gcmRegister(device: GCMDevice, subtype: String) -> OutboundRequest {
        let form = FormEncoding.encode([("app", "org.chromium.linux"), ("X-subtype", subtype),
                                        ("device", String(device.androidID)),
                                        ("sender", app.vapidKey ?? Self.defaultSenderKey)])
        return OutboundRequest(method: "POST", url: endpoints.gcmRegister, headers: [
            .init("Authorization", "AidLogin \(device.androidID):\(device.securityToken)"),
            .init("Content-Type", "application/x-www-form-urlencoded"),
        ], body: Data(form.utf8))
    }

    /// GCM answers 200 with `token=…` or with `Error=…` (PHONE_REGISTRATION_ERROR, AUTHENTICATION_FAILED, …).
    public static func gcmToken(fromReply body: Data) throws(FCMRegistrationError) -> String {
        let text = String(decoding: body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("Error=") { throw .refused(step: .gcmRegister, String(text.dropFirst(6))) }
        guard text.hasPrefix("token="), text.count > 6 else {
            throw .malformedReply(step: .gcmRegister, "no token= in '\(text.prefix(80))'")
        }
        return String(text.dropFirst(6))
    }

    public func createInstallation(fid: String) -> OutboundRequest {
        jsonRequest(endpoints.installations + "projects/\(app.projectID)/installations", body: [
            "appId": app.appID, "authVersion": Self.authVersion, "fid": fid, "sdkVersion": Self.sdkVersion,
        ])
    }

    public func refreshInstallationToken(_ installation: FirebaseInstallation) -> OutboundRequest {
        var request = jsonRequest(
            endpoints.installations + "projects/\(app.projectID)/installations/\(installation.fid)/authTokens:generate",
            body: ["installation": ["appId": app.appID, "sdkVersion": Self.sdkVersion]])
        request.headers.append(.init("Authorization", "\(Self.authVersion) \(installation.refreshToken)"))
        return request
    }

    public func registerWebPush(gcmToken: String, keys: WebPushKeys, installation: FirebaseInstallation)
        -> OutboundRequest {
        var web: [String: String] = [
            "auth": keys.authSecret.base64URLUnpadded, "endpoint": endpoints.webPushEndpoint + gcmToken,
            "p256dh": keys.publicKey.base64URLUnpadded,
        ]
        if let vapid = app.vapidKey { web["applicationPubKey"] = vapid }
        var request = jsonRequest(endpoints.registrations + "projects/\(app.projectID)/registrations", body: ["web": web])
        request.headers.append(.init("x-goog-firebase-installations-auth", installation.authToken))
        return request
    }

    /// The FCM registration token from the registration's reply.
    public static func fcmToken(fromReply body: Data) throws(FCMRegistrationError) -> String {
        guard let reply = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            throw .malformedReply(step: .fcmRegister, "not a JSON object")
        }
        guard let token = reply["token"] as? String, !token.isEmpty else {
            throw .malformedReply(step: .fcmRegister, "no token in the reply")
        }
        return token
    }

    /// A fresh Firebase installation id: 17 random bytes, the top four bits 0111, URL-safe base64 of 22 characters.
    public static func newFID() -> String {
        var bytes = (0..<17).map { _ in UInt8.random(in: 0...255) }
        bytes[0] = 0b0111_0000 | (bytes[0] & 0x0f)
        return String(Data(bytes).base64URLUnpadded.prefix(22))
    }

    private func jsonRequest(_ url: String, body: [String: Any]) -> OutboundRequest {
        let data = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data()
        return OutboundRequest(method: "POST", url: url, headers: [
            .init("Content-Type", "application/json"), .init("x-goog-api-key", app.apiKey),
            .init("x-firebase-client", Self.heartbeatHeader),
        ], body: data)
    }

    /// base64 of `{"heartbeats":[],"version":2}`: the SDK's client header, with nothing to report.
    static let heartbeatHeader = Data(#"{"heartbeats":[],"version":2}"#.utf8).base64EncodedString()
}

/// A Firebase installation: its id, the refresh token that renews its auth token, and the current auth token.
public struct FirebaseInstallation: Sendable, Equatable, Codable {
    public var fid: String
    public var refreshToken: String
    public var authToken: String
    public var authTokenExpiresAt: Date

    public init(fid: String, refreshToken: String, authToken: String, authTokenExpiresAt: Date) {
        self.fid = fid
        self.refreshToken = refreshToken
        self.authToken = authToken
        self.authTokenExpiresAt = authTokenExpiresAt
    }

    /// The reply to creating one: `{fid, refreshToken, authToken: {token, expiresIn: "604800s"}}`.
    public init(createReply body: Data, receivedAt now: Date) throws(FCMRegistrationError) {
        guard let reply = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
              let fid = reply["fid"] as? String, let refresh = reply["refreshToken"] as? String,
              let auth = reply["authToken"] as? [String: Any] else {
            throw .malformedReply(step: .installation, "no fid, refreshToken and authToken in the reply")
        }
        let (token, expiry) = try Self.authToken(auth, receivedAt: now)
        self.init(fid: fid, refreshToken: refresh, authToken: token, authTokenExpiresAt: expiry)
    }

    /// The reply to a refresh: `{token, expiresIn}`.
    public mutating func applyRefreshReply(_ body: Data, receivedAt now: Date) throws(FCMRegistrationError) {
        guard let reply = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            throw .malformedReply(step: .installation, "not a JSON object")
        }
        (authToken, authTokenExpiresAt) = try Self.authToken(reply, receivedAt: now)
    }

    /// Renewed a day before it lapses, as the Firebase SDKs do (their tokens last seven days).
    public func needsRefresh(at now: Date) -> Bool { authTokenExpiresAt.timeIntervalSince(now) < 86_400 }

    private static func authToken(_ object: [String: Any], receivedAt now: Date) throws(FCMRegistrationError)
        -> (String, Date) {
        guard let token = object["token"] as? String, let expiresIn = object["expiresIn"] as? String,
              expiresIn.hasSuffix("s"), let seconds = Double(expiresIn.dropLast()), seconds > 0 else {
            throw .malformedReply(step: .installation, "no auth token with an expiresIn like \"604800s\"")
        }
        return (token, now.addingTimeInterval(seconds))
    }
}
