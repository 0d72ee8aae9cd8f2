import Foundation

/// What the agent keeps per ForgeRock account to verify its pushes and answer them.
public struct ForgeRockCredentials: Codable, Sendable, Equatable {
    /// The UUID the agent chose at registration; pushes name it in `u`.
    public var mechanismUid: String
    public var sharedSecret: Data
    public var authenticationURL: String
    public var registrationURL: String
    public var userId: String?
}

// In an extension, so that Swift still writes the memberwise initialiser (this module's and the tests').
extension ForgeRockCredentials {
    /// What registering `uri` under `mechanismUid` leaves the agent with.
    public init(uri: ForgeRockEnrollmentURI, mechanismUid: String) {
        self.init(mechanismUid: mechanismUid, sharedSecret: uri.sharedSecret, authenticationURL: uri.authenticationURL,
                  registrationURL: uri.registrationURL, userId: uri.userId)
    }
}
