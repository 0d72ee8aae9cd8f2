import Foundation
@testable import PushAgentCore

/// An enrolled account and a push for it, for the answer and device-account tests. RSA key generation is slow,
/// so one key serves every test.
enum GuardianSamples {
    static let key = try! GuardianDeviceKey.generate()
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    static func credentials(apiBase: String = "https://tenant.eu.auth0.com/appliance-mfa") -> GuardianCredentials {
        GuardianCredentials(enrollmentId: "dev_ztaIUOx5Z3zeRimt", deviceIdentifier: "pushagent-device-1",
                            deviceToken: "191YCA4wYITisPHHSGrgZOiJvADmIA...", userId: "auth0|5fadc2e53f6a96006f998832",
                            apiBaseURL: apiBase, privateKeyDER: key.derRepresentation, totp: nil)
    }

    static var notification: GuardianNotification {
        GuardianNotification(enrollmentId: "dev_ztaIUOx5Z3zeRimt", transactionToken: "random_tx_token",
                             challenge: "random_challenge", startedAt: now, expiresAt: now.addingTimeInterval(300),
                             hostname: "tenant.eu.auth0.com")
    }
}
