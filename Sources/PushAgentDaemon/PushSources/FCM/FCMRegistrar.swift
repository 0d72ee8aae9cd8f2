import CurlHTTP
import Foundation
import Logging
import PushAgentCore
import PushAgentStore

/// Registers this machine as a web-push client of a Firebase app, as Chrome on Linux does (GCM check-in, GCM
/// registration, a Firebase installation, the FCM registration with fresh web-push keys), or reuses the stored
/// registration, renewing its installation token a day before it lapses.
struct FCMRegistrar: Sendable {
    let store: AgentStore
    let http: ProviderHTTP
    /// Told of each new registration: the providers of accounts on an earlier one need the new token.
    let tokenUpdater: PushTokenUpdater
    let logger: Logger

    func registration(for app: FirebaseAppProfile, _ settings: FCMSettings, now: Date = Date()) async throws -> FCMRegistration {
        if var stored = try await store.fcmRegistration(app: app.name), stored.app == app {
            if stored.installation.needsRefresh(at: now) {
                let requests = FCMRegistrationRequests(endpoints: settings.endpoints, app: app)
                let reply = try await send(requests.refreshInstallationToken(stored.installation), step: .installation)
                try stored.installation.applyRefreshReply(reply.body, receivedAt: now)
                try await store.saveFCMRegistration(stored)
            }
            return stored
        }
        return try await register(app, settings, now: now)
    }

    /// A new registration (the stored one, if any, is replaced: Google forgot it, or the app changed).
    func register(_ app: FirebaseAppProfile, _ settings: FCMSettings, now: Date = Date()) async throws -> FCMRegistration {
        let requests = FCMRegistrationRequests(endpoints: settings.endpoints, app: app)
        let checkin = try await send(OutboundRequest(method: "POST", url: settings.endpoints.checkin,
                                                     headers: [.init("Content-Type", "application/x-protobuf")],
                                                     body: try GCMCheckin.request()), step: .checkin)
        let device = try GCMCheckin.device(fromResponse: checkin.body)
        let subtype = FCMRegistration.newSubtype()
        let gcmToken = try FCMRegistrationRequests.gcmToken(
            fromReply: try await send(requests.gcmRegister(device: device, subtype: subtype), step: .gcmRegister).body)
        let installation = try FirebaseInstallation(
            createReply: try await send(requests.createInstallation(fid: FCMRegistrationRequests.newFID()),
                                        step: .installation).body, receivedAt: now)
        let keys = WebPushKeys.generate()
        let token = try FCMRegistrationRequests.fcmToken(fromReply: try await send(
            requests.registerWebPush(gcmToken: gcmToken, keys: keys, installation: installation), step: .fcmRegister).body)
        let registration = FCMRegistration(app: app, device: device, subtype: subtype, gcmToken: gcmToken,
                                           installation: installation, keys: keys, token: token, registeredAt: now)
        try await store.saveFCMRegistration(registration)
        tokenUpdater.tokenChanged()
        logger.notice("fcm: registered with Firebase app \(app.name) (project \(app.projectID)) as device \(device.mcsDeviceID)",
                      metadata: ["message_id": "\(LogMessageID.fcmRegistered)", "fcm_app": "\(app.name)"])
        return registration
    }

    private func send(_ request: OutboundRequest, step: FCMRegistrationError.Step) async throws -> HTTPResponse {
        do {
            return try await http.send(request)
        } catch {
            throw FCMRegistrationError.refused(step: step, "\(error)")
        }
    }
}
