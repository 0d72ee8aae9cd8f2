import ControlClient
import ControlWire
import Foundation
import PushAgentCore
import Synchronization
import UnifiedPushBus

/// The UnifiedPush distributor of one user's session (docs/webpush.md, "UnifiedPush apps"): it answers the apps'
/// connectors on the session bus and keeps nothing itself. Registrations and messages live in pushagentd, as the user
/// who runs it: an app's subscription is made there (and at the relay), its messages are kept there until the app's
/// connector has taken them, so a distributor that restarts, or an app that is away, loses nothing.
public final class UnifiedPushDistributor: Sendable {
    public struct Settings: Sendable {
        /// How long an app may be neither running nor installed before its registration is removed (410 to its senders):
        /// long enough for a package upgrade, which takes an app's D-Bus service file away for a moment.
        public var forgetAfter: Duration = .seconds(24 * 3600)
        /// How often the registrations are read again (ones made or removed elsewhere, apps that went away).
        public var reconcileEvery: Duration = .seconds(60)
        /// How long an app's connector has to take a message, its D-Bus activation included.
        public var deliveryTimeout: Duration = .seconds(60)
        /// The longest wait between attempts to reach an app, or the daemon, that did not answer.
        public var maximumBackoff: Duration = .seconds(300)
        public init() {}
    }

    let bus: DistributorBus
    let client: ControlClient
    let settings: Settings
    let log: @Sendable (String) -> Void
    private let deliveries = Mutex<[String: AppDelivery]>([:])

    public init(bus: DistributorBus, client: ControlClient, settings: Settings = Settings(), log: @escaping @Sendable (String) -> Void) {
        self.bus = bus
        self.client = client
        self.settings = settings
        self.log = log
    }

    /// Serves until the session bus connection ends (the bus went away: run again then) or the task is cancelled.
    public func run() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.reconcileForever() }
            for await call in bus.calls {
                group.addTask { await self.handle(call) }
            }
            group.cancelAll()
        }
        deliveries.withLock { running in
            running.values.forEach { $0.stop() }
            running = [:]
        }
    }

    private func handle(_ call: DistributorCall) async {
        switch call {
        case .register(let request, let answer):
            let app = UnifiedPushApp(service: request.service, token: request.token, description: request.description,
                                     vapid: request.vapid, connectorVersion: request.version.rawValue)
            do {
                let registered = try await client.unifiedPushRegister(app)
                answer(nil)
                log("registered \(app.service) as \(registered.name)")
                let told = await bus.newEndpoint(to: app.service, version: request.version, token: app.token,
                                                 endpoint: registered.endpoint)
                if told != .delivered { log("\(app.service) was not told its endpoint: \(told) (it gets it when it registers again)") }
                deliver(to: registered.name, app)
            } catch {
                let failure = Self.failure(error)
                log("could not register \(app.service): \(error) (answered \(failure.rawValue))")
                answer(failure)
            }
        case .unregister(let request, let answer):
            answer()
            await unregister(token: request.token, service: nil, version: request.version, confirm: true)
        }
    }

    /// Removes the registration in the daemon (and at the relay); confirms to the app with `Unregistered` when it asked.
    /// A daemon or relay that cannot be reached now leaves it to the next reconciliation, which finds it still there.
    func unregister(token: String, service: String?, version: ConnectorVersion, confirm: Bool) async {
        do {
            let removed = try await client.unifiedPushUnregister(token: token)
            stopDelivery(to: removed.name)
            log("unregistered \(removed.app?.service ?? "an app") (\(removed.name)); its senders now get 410")
            if confirm, let service = removed.app?.service ?? service {
                _ = await bus.unregistered(to: service, version: version, token: token)
            }
        } catch ControlClientError.api(_, let error) where error.code == .notFound {
            if confirm, let service { _ = await bus.unregistered(to: service, version: version, token: token) }
        } catch {
            log("could not unregister an app now: \(error); trying again later")
        }
    }

    /// The daemon's registrations, read again now and then: a delivery for each (ones made by an earlier run
    /// included; one removed elsewhere ends by itself, see AppDelivery), and registrations of apps gone for good removed.
    private func reconcileForever() async {
        var missingSince: [String: ContinuousClock.Instant] = [:]
        while !Task.isCancelled {
            do {
                let apps = try await client.webPushSubscriptions().subscriptions.compactMap { listed in
                    listed.app.map { (name: listed.name, app: $0, stale: listed.stale) }
                }
                for (name, app, stale) in apps {
                    if stale { await renew(app) }
                    deliver(to: name, app)
                    if try await bus.isInstalled(app.service) {
                        missingSince[name] = nil
                    } else if let since = missingSince[name] {
                        if since.duration(to: .now) >= settings.forgetAfter {
                            log("\(app.service) has been neither running nor installed for \(settings.forgetAfter): removing its registration")
                            await unregister(token: app.token, service: app.service, version: app.version, confirm: false)
                            missingSince[name] = nil
                        }
                    } else {
                        missingSince[name] = .now
                    }
                }
            } catch {
                log("could not read the registrations: \(error)")
            }
            try? await Task.sleep(for: settings.reconcileEvery)
        }
    }

    /// Registers the app again for it, when the relay has forgotten its subscription (pushagentd registered with the
    /// relay anew): pushagentd makes it again, its waiting messages kept, and the app learns its new endpoint.
    private func renew(_ app: UnifiedPushApp) async {
        do {
            let registered = try await client.unifiedPushRegister(app)
            log("\(app.service)'s endpoint was made again (the relay had forgotten it); telling the app")
            _ = await bus.newEndpoint(to: app.service, version: app.version, token: app.token, endpoint: registered.endpoint)
        } catch {
            log("could not make \(app.service)'s endpoint again now: \(error); trying again later")
        }
    }

    /// Starts delivering the subscription's messages to the app, unless that runs already.
    func deliver(to name: String, _ app: UnifiedPushApp) {
        deliveries.withLock { running in
            guard running[name] == nil else { return }
            running[name] = AppDelivery.start(name: name, app: app, distributor: self)
        }
    }

    func stopDelivery(to name: String) {
        deliveries.withLock { running in
            running[name]?.stop()
            running[name] = nil
        }
    }

    /// What a connector is told when its registration could not be made: NETWORK when the relay is away (it tries
    /// again when the network is back), ACTION_REQUIRED when the user must act (pushagentd not set up with a relay).
    static func failure(_ error: any Error) -> RegistrationFailure {
        guard case ControlClientError.api(_, let control) = error else { return .internalError }
        switch control.code {
        case .unavailable where control.message.contains("not registered with the relay"): return .actionRequired
        case .unavailable, .upstream: return .network
        default: return .internalError
        }
    }
}

extension UnifiedPushApp {
    var version: ConnectorVersion { ConnectorVersion(rawValue: connectorVersion) ?? .v2 }
}
