import ControlWire
import Foundation
import Logging
import NIOCore
import NIOSSL
import PushAgentCore
import PushAgentStore
import Synchronization
import SystemdSupport

/// Pushes that providers send through Google's FCM: registered as a web-push client (FCMRegistrar), logged in to
/// MCS over TLS, each data message decrypted and handed to ingest. A message is acknowledged to Google only after
/// ingest committed it, and its id is repeated at the next login, so a crash in between redelivers (and the store's
/// poll key dedupes) rather than loses.
/// One source per configured Firebase app: each app's registration is a device of its own to Google.
struct FCMPushSource: PushSource {
    /// Pushes committed in one transaction at most, as a relay poll brings.
    static let batchSize = 100
    /// The Firebase app (FCMSettings) whose pushes this source receives.
    let appName: String
    let registrar: FCMRegistrar
    let config: LiveConfig
    let status = FCMStatusBox()
    let acknowledged = AcknowledgedIDs()
    /// Shared by every app's source.
    let tlsContexts: TLSContexts
    /// Wakes from suspend (SleepWatcher): a connection that slept is replaced at once, and a backoff cut short.
    let wakes: WakeCounter
    let logger: Logger

    /// `fcm` for the default app, `fcm:NAME` for the others.
    var name: String { appName == FCMSettings.defaultAppName ? "fcm" : "fcm:" + appName }

    func health() -> PushSourceStatus { status.health(name: name) }

    /// The app's profile as the settings say now; an app a reload removed stops here until a restart drops it.
    private func app(_ settings: FCMSettings) throws(FCMSourceError) -> FirebaseAppProfile {
        guard let app = settings.app(named: appName) else {
            throw .misconfigured("the FCM app '\(appName)' is no longer in pushagentd.toml: restart pushagentd to stop receiving for it")
        }
        return app
    }

    /// `pushctl fcm check`: the registration as it is after registering (or reusing it), and the connection.
    func check() async throws -> FCMCheckResponse {
        let settings = config.current.providers.fcm
        let app: FirebaseAppProfile
        do { app = try self.app(settings) } catch { throw ServiceError(.unavailable, "\(error)") }
        let registration: FCMRegistration
        do { registration = try await registrar.registration(for: app, settings) } catch {
            throw ServiceError(.upstream, "\(error)")
        }
        return FCMCheckResponse(registration, connection: health())
    }

    func run(into ingest: PushIngest) async throws {
        let health = ConnectionHealth(name: name, backoff: Backoff(config.current), logger: logger,
                                      metadata: ["message_id": "\(LogMessageID.fcmConnection)"])
        // When the registration was made again because MCS refused it: a refusal of the new one too is not Google
        // having forgotten this machine, and registering again and again would only change the token each time.
        var reRegisteredAt: Date?
        while !Task.isCancelled {
            let settings = config.current.providers.fcm
            let reason: String
            let wakesSeen = wakes.count
            do {
                let app = try self.app(settings)
                status.update { $0.state = "registering" }
                let registration = try await registrar.registration(for: app, settings)
                status.update { $0.tokenIssued = registration.registeredAt; $0.state = "connecting" }
                try await session(registration, settings, ingest: ingest, wakesSeen: wakesSeen, health: health) {
                    reRegisteredAt = nil
                }
                reason = "\(settings.endpoints.mcsHost):\(settings.endpoints.mcsPort) closed the connection"
            } catch is CancellationError {
                return
            } catch FCMSourceError.resumed {
                health.endedOnPurpose()
                logger.notice("\(name): the machine woke from suspend; connecting again now",
                              metadata: ["message_id": "\(LogMessageID.fcmConnection)"])
                continue
            } catch let refusal as LoginRefusal where refusal.isAuthentication && Self.mayRegisterAgain(after: reRegisteredAt) {
                // Google forgot the registration (or never had it): only a new one can receive again.
                reason = "\(refusal)"
                reRegisteredAt = Date()
                try? await registrar.store.deleteFCMRegistration(app: appName)
                logger.critical("\(name): MCS refused this machine's registration (\(refusal.code) \(refusal.message)); registering again. The FCM token changes: the providers of accounts on FCM are told the new one where they can be (pushctl accounts says where not)",
                                metadata: ["message_id": "\(LogMessageID.tokenChanged)"])
            } catch let refusal as LoginRefusal where refusal.isAuthentication {
                reason = "\(refusal), and it refused the registration made again for it at \(reRegisteredAt!.formatted(.iso8601)) too: "
                    + "Google does not take this app's registrations (check the fcm_* values: pushctl fcm check); "
                    + "trying the same registration again later rather than registering again"
            } catch {
                reason = "\(error)"
            }
            if Task.isCancelled { return }
            let delay = health.failed(reason, backoff: Backoff(config.current))
            status.update { $0.state = "backoff"; $0.error = reason; $0.connectedSince = nil }
            await sleep(seconds: delay, orUntilWakePast: wakesSeen)
        }
    }

    /// Registering again is the answer to a refused login once, not again within the hour: a second refusal right
    /// after it says something else is wrong, and each registration changes the token the providers must be told.
    static let registerAgainAfter: TimeInterval = 3600

    static func mayRegisterAgain(after reRegistered: Date?, now: Date = Date()) -> Bool {
        reRegistered.map { now.timeIntervalSince($0) >= registerAgainAfter } ?? true
    }

    /// The backoff's wait, cut short by a wake from suspend: the network that failed may be another one now.
    private func sleep(seconds: Double, orUntilWakePast seen: Int) async {
        _ = try? await wakes.unlessWoken(past: seen) { try await Task.sleep(for: .milliseconds(Int(seconds * 1000))) }
    }
}
