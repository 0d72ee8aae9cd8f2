import ControlWire
import Foundation
import Logging
import PushAgentCore
import PushAgentStore

/// Enrolls accounts from QR URIs and removes them.
struct EnrollmentService: Sendable {
    let store: AgentStore
    let modules: ProviderModules
    let events: EventBus
    let deviceName: String
    let config: LiveConfig
    /// The Firebase apps with a connection (made at start: an app a reload added has none until a restart).
    let runningFCMApps: [String]
    let logger: Logger

    func enroll(uri text: String, name: String?, fcmApp: String? = nil, peer: Peer) async throws -> Account {
        let uri: EnrollmentURI
        do { uri = try EnrollmentURI.parse(text) }
        catch { throw ServiceError(.invalidArgument, "\(error)") }
        guard let module = modules[uri.provider] else {
            throw ServiceError(.invalidArgument, "\(uri.provider.rawValue) accounts are not supported yet")
        }
        if let name, name.utf8.count > Account.maximumFieldBytes {
            throw ServiceError(.invalidArgument, "the name is \(name.utf8.count) bytes long; at most \(Account.maximumFieldBytes) are accepted")
        }
        guard var device = try await store.deviceIdentity() else {
            throw ServiceError(.unavailable, "not registered with the relay yet, so there is no push token to give the provider; check `pushctl status` and try again once the relay is connected")
        }
        let fcmApp = try transport(requested: fcmApp, provider: uri.provider)
        if let fcmApp {
            // A registration made for values a reload has since changed is about to be replaced: not its token.
            guard let registration = try await store.fcmRegistration(app: fcmApp),
                  registration.app == config.current.providers.fcm.app(named: fcmApp) else {
                throw ServiceError(.unavailable, "not registered with FCM for the Firebase app '\(fcmApp)' yet, so there is no FCM token to give the provider: try again once `pushctl status` shows it connected (`pushctl fcm check --app \(fcmApp)` says why not), or enroll with --fcm-app \(FCMSettings.relayName) to receive through the relay")
            }
            device.token = registration.token
        }
        let enrolled: EnrolledAccount
        do {
            enrolled = try await module.enroll(any: uri, name: name, device: device, deviceName: deviceName)
        } catch let failure as EnrollmentFailure {
            throw ServiceError(failure.upstream ? .upstream : .invalidArgument, failure.description)
        }
        var account = enrolled.account
        account.fcmApp = fcmApp
        try await store.addAccount(account, lookupKey: enrolled.lookupKey, credentials: enrolled.credentials,
                                   totp: enrolled.totp)
        try await store.audit(event: "enroll", peer: peer, subject: account.id,
                              detail: "\(account.provider.rawValue) \(account.issuer):\(account.name)")
        logger.notice("account \(account.id) enrolled (\(account.issuer): \(account.name))",
                      metadata: ["account_id": "\(account.id)", "provider": "\(account.provider.rawValue)"])
        await events.publish(.accountChanged(account))
        return account
    }

    /// The Firebase app the account receives through: the one asked for, else its provider's default (FCMSettings);
    /// nil for the relay.
    private func transport(requested: String?, provider: Provider) throws -> String? {
        let settings = config.current.providers.fcm
        guard requested != FCMSettings.relayName, let name = requested ?? settings.appForProvider[provider] else { return nil }
        guard settings.app(named: name) != nil else {
            let apps = settings.apps.map(\.name)
            throw ServiceError(.invalidArgument, "no FCM app '\(name)' in pushagentd.toml (\(apps.isEmpty ? "FCM is off" : "its apps: " + apps.joined(separator: ", "))); set one up as docs/fcm.md says and restart pushagentd, or enroll with --fcm-app \(FCMSettings.relayName) to receive through the relay")
        }
        guard runningFCMApps.contains(name) else {
            throw ServiceError(.unavailable, "the FCM app '\(name)' came with a reload and has no connection yet: restart pushagentd to start it (pending approvals are kept), or enroll with --fcm-app \(FCMSettings.relayName) to receive through the relay")
        }
        return name
    }

    func remove(_ idOrPrefix: String, peer: Peer) async throws -> Account {
        let stored = try await store.account(matching: idOrPrefix)
        do {
            try await modules[stored.account.provider]?.unenroll(stored)
        } catch {
            // The user asked for the account to go; the provider's side is reported for them to finish by hand.
            logger.warning("account \(stored.account.id) removed here, but \(stored.account.provider.displayName) could not be told: \(error); remove this device from your \(stored.account.provider.displayName) settings",
                           metadata: ["account_id": "\(stored.account.id)"])
        }
        let (account, ended) = try await store.removeAccount(matching: stored.account.id)
        try await store.audit(event: "remove", peer: peer, subject: account.id, detail: nil)
        logger.notice("account \(account.id) removed", metadata: ["account_id": "\(account.id)"])
        await events.publish(.accountChanged(account))
        for approval in ended { await events.publish(.approvalUpdated(approval)) }
        return account
    }
}
