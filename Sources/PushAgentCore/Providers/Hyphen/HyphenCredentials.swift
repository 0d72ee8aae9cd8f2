import Foundation

/// What the agent keeps per Hyphen account (in the state database, 0600): the app's endpoints and secret, this
/// device's key, and once signed in, the session and where the key sits on the Flow account.
public struct HyphenCredentials: Codable, Sendable, Equatable {
    public struct Session: Codable, Sendable, Equatable {
        public var accessToken: String
        public var refreshToken: String?
        /// The user's Flow account on the enrolled chain.
        public var address: FlowAddress
        /// This device key's index among the account's keys.
        public var keyIndex: UInt32

        public init(accessToken: String, refreshToken: String?, address: FlowAddress, keyIndex: UInt32) {
            self.accessToken = accessToken
            self.refreshToken = refreshToken
            self.address = address
            self.keyIndex = keyIndex
        }
    }

    /// The app, user and endpoints the account was enrolled with.
    public var app: HyphenEnrollmentURI
    /// The P-256 scalar, 32 bytes.
    public var deviceKey: Data
    public var session: Session?

    public init(uri: HyphenEnrollmentURI, deviceKey: HyphenDeviceKey) {
        app = uri
        self.deviceKey = deviceKey.rawRepresentation
        session = nil
    }

    public func key() throws -> HyphenDeviceKey { try HyphenDeviceKey(rawRepresentation: deviceKey) }
}
