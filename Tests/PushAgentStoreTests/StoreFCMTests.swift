import Crypto
import Foundation
import PushAgentCore
@testable import PushAgentStore
import Testing

/// FCM registrations in the store: sealed, one per app, and a token that changes flags the app's accounts.
struct StoreFCMTests {
    func registration(app: String, token: String) -> FCMRegistration {
        FCMRegistration(app: FirebaseAppProfile(name: app, projectID: "p-\(app)", apiKey: "k", appID: "1:2:web:3", senderID: "2"),
                        device: GCMDevice(androidID: 1, securityToken: 2), subtype: FCMRegistration.newSubtype(),
                        gcmToken: "gcm", installation: FirebaseInstallation(fid: "f", refreshToken: "r", authToken: "a",
                                                                           authTokenExpiresAt: Date().addingTimeInterval(86_400 * 7)),
                        keys: WebPushKeys.generate(), token: token, registeredAt: Date())
    }

    @Test func aNewTokenForAnAppFlagsItsAccountsAndNoOthers() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-fcm-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try AgentStore(directory: directory)
        try await store.saveFCMRegistration(registration(app: "default", token: "token-1"))
        try await store.saveFCMRegistration(registration(app: "tenant", token: "tenant-1"))
        for (id, app) in [("acc_default", "default"), ("acc_tenant", "tenant")] {
            try await store.addAccount(Account(id: id, provider: .forgerock, issuer: "i", name: id, createdAt: Date(),
                                               hasTOTP: false, fcmApp: app),
                                       lookupKey: "mech-\(id)", credentials: Data("{}".utf8), totp: nil)
        }
        let flagged = { try await store.accounts().filter(\.needsTokenUpdate).map(\.id) }

        try await store.saveFCMRegistration(registration(app: "default", token: "token-1"))
        #expect(try await flagged().isEmpty, "the same token (an installation token refreshed) changes nothing")
        try await store.saveFCMRegistration(registration(app: "default", token: "token-2"))
        #expect(try await flagged() == ["acc_default"])
        #expect(try await store.pushToken(for: try #require(try await store.accounts().first { $0.id == "acc_default" }))
                == "token-2")
    }
}
