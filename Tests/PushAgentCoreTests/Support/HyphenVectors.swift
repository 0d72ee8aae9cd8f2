import Foundation
@testable import PushAgentCore

/// Hyphen has no upstream test vectors (protocols.md §3.4); these are its only literal samples.
enum HyphenVectors {
    /// hyphen-android-sdk `ui/.../twofactor/Hyphen2FAView.kt`, `Hyphen2FAViewPreview`, JSON-encoded as the SDK's
    /// kotlinx serialization writes it (enums by their serial names).
    static let androidPreview = """
    {"twoFactorAuth":{"id":"0000000000000000","accountId":"000000000","request":{"id":"000000",\
    "app":{"appId":"000000","appName":"Hyphen SDK Sample"},"userOpInfo":{"type":"sign-in","signIn":\
    {"location":"Seoul, KR","ip":"127.0.0.1","email":"test@hyphen.at"}},"srcDevice":{"id":"000000",\
    "publicKey":"000000","pushToken":"000000","name":"iPhone 15 Pro Max","osName":"Android","osVersion":"17.1.0",\
    "deviceManufacturer":"Apple","deviceModel":"iPhone16,2","lang":"KR","type":"mobile"},"destDevice":{"id":"000000",\
    "publicKey":"000000","pushToken":"000000","name":"Google Pixel 6a","osName":"Android","osVersion":"12.0.1",\
    "deviceManufacturer":"Google","deviceModel":"pixel6a","lang":"United States","type":"mobile"},\
    "requestedAt":"2023-06-21T00:00:00:000","message":"<cadence script>"},"status":"pending",\
    "expiresAt":"2023-06-21T00:00:00:000"}}
    """

    /// Hyphen's documentation, "Handling 2FA Push" → "2FA Request (On Destination Device)" example (no accountId).
    static let documentedRequest = """
    {"twoFactorAuth":{"id":"faceb00c-cafe-babe-badd-deadbeef1234","status":"pending",\
    "expiresAt":"2023-07-21T18:36:27.872Z","request":{"id":"faceb00c-cafe-babe-badd-deadbeef1234",\
    "app":{"appId":"swirl-dev","appName":"Swirl"},"userOpInfo":{"type":"sign-in","signIn":\
    {"email":"john@acme.com","ip":"127.0.0.1","location":"Seoul, Korea"}},\
    "message":"faceb00ccafebabedeadbeefbadf00defaceb00ccafebabedeadbeefbadf00de",\
    "srcDevice":{"publicKey":"faceb00ccafebabedeadbeefbadf00defaceb00ccafebabedeadbeefbadf00de",\
    "pushToken":"bk3RNwTe3H0:CI2k_HHwgIpoDKCIZvvDMExUdFQ3P1...","name":"iPhone 14","osName":"iOS","osVersion":"16.2",\
    "deviceManufacturer":"Apple","deviceModel":"SM-265N","lang":"en","type":"mobile"},\
    "destDevice":{"publicKey":"faceb00ccafebabedeadbeefbadf00defaceb00ccafebabedeadbeefbadf00de",\
    "pushToken":"bk3RNwTe3H0:CI2k_HHwgIpoDKCIZvvDMExUdFQ3P1...","name":"iPhone 14","osName":"iOS","osVersion":"16.2",\
    "deviceManufacturer":"Apple","deviceModel":"SM-265N","lang":"en","type":"mobile"},\
    "requestedAt":"2023-07-21T18:31:27.872Z"}}}
    """

    static func push(_ type: String, _ json: String) -> [String: String] { ["hyphen:type": type, "hyphen:data": json] }

    static let account = Account(id: "acc_hyphen", provider: .hyphen, issuer: "Swirl", name: "john@acme.com",
                                 createdAt: Date(timeIntervalSince1970: 0), hasTOTP: false)
}
