import Foundation

// Bodies and replies of Hyphen's REST API (hyphen-android-sdk `networking/.../request|response/`), shared by the
// agent and pushsim.

/// How the user proved who they are: the SDKs send a Firebase ID token (`method: "firebase"`).
public struct HyphenAuthMethod: Codable, Sendable, Equatable {
    public var method: String
    public var token: String
    public var chainName: String
    public init(token: String, chain: HyphenChain) {
        method = "firebase"
        self.token = token
        chainName = chain.rawValue
    }
}

public struct HyphenUserKey: Codable, Sendable, Equatable {
    /// `device` (the SDKs also know `passkey` and `wallet`).
    public var type: String
    public var publicKey: String
    public var device: HyphenDevice
    public init(device: HyphenDevice) {
        type = "device"
        publicKey = device.publicKey
        self.device = device
    }
}

/// `POST /auth/v1/signin/2fa`.
public struct HyphenSignIn2FABody: Codable, Sendable, Equatable {
    public var request: HyphenAuthMethod
    public var userKey: HyphenUserKey
}

/// `POST /auth/v1/signup`: the first device of a new account.
public struct HyphenSignUpBody: Codable, Sendable, Equatable {
    public var method: String
    public var token: String
    public var chainName: String
    public var userKey: HyphenUserKey
}

/// `POST /auth/v1/signin/challenge`.
public struct HyphenChallengeBody: Codable, Sendable, Equatable {
    public var challengeType: String
    public var request: HyphenAuthMethod
    public var publicKey: String
}

/// The reply to `POST /auth/v1/signin/challenge`.
public struct HyphenChallenge: Codable, Sendable, Equatable {
    public var challengeData: String
    public var expiresAt: String
    public init(challengeData: String, expiresAt: String) {
        self.challengeData = challengeData
        self.expiresAt = expiresAt
    }
}

/// `POST /auth/v1/signin/challenge/respond`: the signature is P-256/SHA-256 over the UTF-8 of `challengeData`, hex r‖s.
public struct HyphenChallengeResponseBody: Codable, Sendable, Equatable {
    public struct DeviceKey: Codable, Sendable, Equatable { public var signature: String }
    public var challengeType: String
    public var challengeData: String
    public var deviceKey: DeviceKey
}

/// `POST /auth/v1/signin/2fa/finish`.
public struct HyphenFinishBody: Codable, Sendable, Equatable {
    public var twoFactorAuthRequestId: String
}

/// `POST /device/v1/2fa/{id}/approve`.
public struct HyphenApproveBody: Codable, Sendable, Equatable {
    public var txId: String
}

/// `POST /sign/v1/cadence/transaction|paymaster`: hex of the whole signing message, domain tag included.
public struct HyphenSignBody: Codable, Sendable, Equatable {
    public var message: String
}

public struct HyphenSignResult: Codable, Sendable, Equatable {
    public struct Signature: Codable, Sendable, Equatable {
        public var addr: String
        public var keyId: UInt32
        /// Hex r‖s.
        public var signature: String
        public init(addr: String, keyId: UInt32, signature: String) {
            self.addr = addr
            self.keyId = keyId
            self.signature = signature
        }
    }
    public var signature: Signature
    public init(signature: Signature) { self.signature = signature }
}

/// The reply to sign-up, 2FA finish and challenge respond.
public struct HyphenSignInResult: Codable, Sendable, Equatable {
    public struct Account: Codable, Sendable, Equatable {
        public struct Address: Codable, Sendable, Equatable {
            public var chainName: String
            public var address: String
            public init(chainName: String, address: String) {
                self.chainName = chainName
                self.address = address
            }
        }
        public var id: String
        public var addresses: [Address]
        public init(id: String, addresses: [Address]) {
            self.id = id
            self.addresses = addresses
        }
    }
    public struct Credentials: Codable, Sendable, Equatable {
        public var accessToken: String
        public var refreshToken: String?
        public init(accessToken: String, refreshToken: String?) {
            self.accessToken = accessToken
            self.refreshToken = refreshToken
        }
    }
    public var account: Account
    public var credentials: Credentials
    public init(account: Account, credentials: Credentials) {
        self.account = account
        self.credentials = credentials
    }
}

/// `GET /key/v1/keys`.
public struct HyphenKeys: Codable, Sendable, Equatable {
    public struct Key: Codable, Sendable, Equatable {
        public var publicKey: String
        /// `user-key`, `recover-key` or `server-key`.
        public var type: String
        public var name: String
        public var keyIndex: UInt32
        public init(publicKey: String, type: String, name: String, keyIndex: UInt32) {
            self.publicKey = publicKey
            self.type = type
            self.name = name
            self.keyIndex = keyIndex
        }
    }
    public var keys: [Key]
    public init(keys: [Key]) { self.keys = keys }
}
