import Foundation

/// Hyphen's REST calls (protocols.md §3.2), described for the daemon to send. Every call carries the app secret and
/// the SDK headers; calls on behalf of a signed-in device carry its bearer token. The base URL is the account's, so
/// tests point it at pushsim.
public struct HyphenAPI: Sendable {
    /// The SDKs' platform header takes `Android` or `iOS`; see `HyphenDevice.linux` for why this says Android.
    public static let platform = "Android"
    public static let sdkVersion = "0.1.0"

    public let baseURL: String
    public let appSecret: String

    public init(baseURL: String, appSecret: String) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.appSecret = appSecret
    }

    public init(_ credentials: HyphenCredentials) {
        self.init(baseURL: credentials.app.apiURL, appSecret: credentials.app.appSecret)
    }

    // MARK: Destination device: answering another device's sign-in

    public func approve(twoFactorAuthId id: String, transactionId: String, token: String) throws -> OutboundRequest {
        try request("POST", "/device/v1/2fa/\(Self.escape(id))/approve", body: HyphenApproveBody(txId: transactionId),
                    token: token)
    }

    public func deny(twoFactorAuthId id: String, token: String) throws -> OutboundRequest {
        try request("DELETE", "/device/v1/2fa/\(Self.escape(id))", body: String?.none, token: token)
    }

    /// Hyphen's server key co-signs the payload (`HyphenServerKeySigner`).
    public func signTransaction(_ message: Data, token: String) throws -> OutboundRequest {
        try request("POST", "/sign/v1/cadence/transaction", body: HyphenSignBody(message: message.hex), token: token)
    }

    /// The paymaster signs the envelope (`HyphenPayMasterKeySigner`).
    public func signAsPaymaster(_ message: Data, token: String) throws -> OutboundRequest {
        try request("POST", "/sign/v1/cadence/paymaster", body: HyphenSignBody(message: message.hex), token: token)
    }

    public func keys(token: String) throws -> OutboundRequest {
        try request("GET", "/key/v1/keys", body: String?.none, token: token)
    }

    // MARK: Source device: signing this device in

    public func signIn2FA(credential: String, chain: HyphenChain, device: HyphenDevice) throws -> OutboundRequest {
        try request("POST", "/auth/v1/signin/2fa", body: HyphenSignIn2FABody(
            request: HyphenAuthMethod(token: credential, chain: chain), userKey: HyphenUserKey(device: device)))
    }

    /// Where the SDKs go when the 2FA request says "please sign up": this device becomes the account's first.
    public func signUp(credential: String, chain: HyphenChain, device: HyphenDevice) throws -> OutboundRequest {
        let method = HyphenAuthMethod(token: credential, chain: chain)
        return try request("POST", "/auth/v1/signup", body: HyphenSignUpBody(
            method: method.method, token: method.token, chainName: method.chainName, userKey: HyphenUserKey(device: device)))
    }

    /// Bearer: the sign-in's ephemeral access token.
    public func finish2FA(requestId: String, ephemeralToken: String) throws -> OutboundRequest {
        try request("POST", "/auth/v1/signin/2fa/finish", body: HyphenFinishBody(twoFactorAuthRequestId: requestId),
                    token: ephemeralToken)
    }

    /// The request's current status, for when no status push arrives. Not in the SDKs (they wait for the push): the
    /// REST resource of approve/deny/retry read with GET, with the sign-in's ephemeral token.
    public func twoFactorStatus(twoFactorAuthId id: String, ephemeralToken: String) throws -> OutboundRequest {
        try request("GET", "/device/v1/2fa/\(Self.escape(id))", body: String?.none, token: ephemeralToken)
    }

    public func signInChallenge(credential: String, chain: HyphenChain, publicKey: String) throws -> OutboundRequest {
        try request("POST", "/auth/v1/signin/challenge", body: HyphenChallengeBody(
            challengeType: "deviceKey", request: HyphenAuthMethod(token: credential, chain: chain), publicKey: publicKey))
    }

    /// Signs `challengeData` (its UTF-8 bytes) with the device key.
    public func respondToChallenge(_ challenge: HyphenChallenge, key: HyphenDeviceKey) throws -> OutboundRequest {
        let signature = try key.sign(Data(challenge.challengeData.utf8))
        return try request("POST", "/auth/v1/signin/challenge/respond", body: HyphenChallengeResponseBody(
            challengeType: "deviceKey", challengeData: challenge.challengeData,
            deviceKey: .init(signature: signature.hex)))
    }

    // MARK: Plumbing

    private func request(_ method: String, _ path: String, body: (some Encodable)?, token: String? = nil) throws
        -> OutboundRequest {
        var headers = [
            OutboundRequest.Header("X-Hyphen-App-Secret", appSecret),
            OutboundRequest.Header("X-Hyphen-SDK-Platform", Self.platform),
            OutboundRequest.Header("X-Hyphen-SDK-Version", Self.sdkVersion),
            OutboundRequest.Header("Content-Type", "application/json"),
        ]
        if let token, !token.isEmpty { headers.append(.init("Authorization", "Bearer \(token)")) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return OutboundRequest(method: method, url: baseURL + path, headers: headers,
                               body: try body.map { try encoder.encode($0) } ?? Data())
    }

    private static func escape(_ segment: String) -> String {
        segment.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? segment
    }
}
