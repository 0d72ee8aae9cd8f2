import Foundation

// Hyphen's JSON as the SDKs define it (protocols.md §3.1; hyphen-android-sdk `core/.../twofactor/`, hyphen-ios-sdk
// `HyphenCore/Sources/Common/2FA/`). Shared by the agent and pushsim. Unknown keys are ignored, as the SDKs do;
// free-text fields stay strings so a new OS name or device type does not make a push unreadable.

/// `hyphen:data` of both push types, and the reply to `POST /auth/v1/signin/2fa`.
public struct HyphenSignIn2FA: Codable, Sendable, Equatable {
    public var twoFactorAuth: Hyphen2FAStatus
    /// Only in the sign-in reply: the bearer token for finishing (and polling) that one sign-in.
    public var ephemeralAccessToken: String?

    public init(twoFactorAuth: Hyphen2FAStatus, ephemeralAccessToken: String? = nil) {
        self.twoFactorAuth = twoFactorAuth
        self.ephemeralAccessToken = ephemeralAccessToken
    }
}

public struct Hyphen2FAStatus: Codable, Sendable, Equatable {
    /// All three SDKs know only these; there is no `expired` (expiry is `expiresAt`).
    public enum Status: String, Codable, Sendable {
        case pending, approved, denied
    }

    public struct Result: Codable, Sendable, Equatable {
        /// The Flow transaction the approving device executed.
        public var txId: String
        public init(txId: String) { self.txId = txId }
    }

    /// What approve and deny name (`/device/v1/2fa/{id}`).
    public var id: String
    public var accountId: String?
    public var status: Status
    public var expiresAt: String
    public var result: Result?
    public var request: Hyphen2FARequest

    public init(id: String, accountId: String?, status: Status, expiresAt: String, result: Result? = nil,
                request: Hyphen2FARequest) {
        self.id = id
        self.accountId = accountId
        self.status = status
        self.expiresAt = expiresAt
        self.result = result
        self.request = request
    }
}

public struct Hyphen2FARequest: Codable, Sendable, Equatable {
    public struct App: Codable, Sendable, Equatable {
        public var appId: String
        public var appName: String
        public init(appId: String, appName: String) {
            self.appId = appId
            self.appName = appName
        }
    }

    public struct UserOpInfo: Codable, Sendable, Equatable {
        public struct SignIn: Codable, Sendable, Equatable {
            public var location: String?
            public var ip: String?
            public var email: String?
            public init(location: String?, ip: String?, email: String?) {
                self.location = location
                self.ip = ip
                self.email = email
            }
        }
        /// `sign-in` is the only type the SDKs know.
        public var type: String
        public var signIn: SignIn?
        public init(type: String, signIn: SignIn?) {
            self.type = type
            self.signIn = signIn
        }
    }

    /// What `/auth/v1/signin/2fa/finish` names (`twoFactorAuthRequestId`).
    public var id: String
    public var app: App
    public var userOpInfo: UserOpInfo
    public var srcDevice: HyphenDevice
    public var destDevice: HyphenDevice
    public var requestedAt: String
    /// JSON text `{"cadence": "<script>"}`: the transaction the approving device runs.
    public var message: String

    public init(id: String, app: App, userOpInfo: UserOpInfo, srcDevice: HyphenDevice, destDevice: HyphenDevice,
                requestedAt: String, message: String) {
        self.id = id
        self.app = app
        self.userOpInfo = userOpInfo
        self.srcDevice = srcDevice
        self.destDevice = destDevice
        self.requestedAt = requestedAt
        self.message = message
    }
}

public struct HyphenDevice: Codable, Sendable, Equatable {
    public var id: String?
    /// Hex x‖y of the device's P-256 key: how the agent recognizes itself in a push.
    public var publicKey: String
    public var pushToken: String
    public var name: String
    /// The SDKs decode `iOS`, `iPadOS` or `Android` only (see `HyphenDevice.linux`).
    public var osName: String
    public var osVersion: String
    public var deviceManufacturer: String
    public var deviceModel: String
    public var lang: String
    /// `mobile` or `tablet` in the SDKs.
    public var type: String

    public init(id: String? = nil, publicKey: String, pushToken: String, name: String, osName: String, osVersion: String,
                deviceManufacturer: String, deviceModel: String, lang: String, type: String) {
        self.id = id
        self.publicKey = publicKey
        self.pushToken = pushToken
        self.name = name
        self.osName = osName
        self.osVersion = osVersion
        self.deviceManufacturer = deviceManufacturer
        self.deviceModel = deviceModel
        self.lang = lang
        self.type = type
    }

    /// This machine as Hyphen is told of it. The approving phone's SDK decodes `osName` and `type` as closed enums
    /// (protocols.md §3.1), so any honest value there would make it drop the request: they say Android/mobile, and the
    /// name, manufacturer and model say what the device really is.
    public static func linux(publicKey: String, pushToken: String, name: String, osVersion: String) -> HyphenDevice {
        HyphenDevice(publicKey: publicKey, pushToken: pushToken, name: name, osName: "Android", osVersion: osVersion,
                     deviceManufacturer: "pushagent", deviceModel: "Linux", lang: "en", type: "mobile")
    }

    /// "iPhone 14 (iOS 16.2, Apple SM-265N)": what a person recognizes the requesting device by.
    public var summary: String {
        let model = [deviceManufacturer, deviceModel].filter { !$0.isEmpty }.joined(separator: " ")
        let system = [osName, osVersion].filter { !$0.isEmpty }.joined(separator: " ")
        let details = [system, model].filter { !$0.isEmpty }.joined(separator: ", ")
        return details.isEmpty ? name : "\(name) (\(details))"
    }
}
