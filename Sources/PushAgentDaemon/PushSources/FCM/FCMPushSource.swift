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
        return FCMCheckResponse(app: app.name, projectID: app.projectID, senderID: app.senderID,
                                token: registration.token, device: registration.device.mcsDeviceID,
                                registeredAt: registration.registeredAt,
                                installationTokenExpiresAt: registration.installation.authTokenExpiresAt,
                                connection: health())
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

    private func session(_ registration: FCMRegistration, _ settings: FCMSettings, ingest: PushIngest, wakesSeen: Int,
                         health: ConnectionHealth, onLogin: () -> Void) async throws {
        let endpoints = settings.endpoints
        let keys = try registration.keys()
        let tls = try tlsContexts.context(caFile: settings.caFile)
        let proxy = try HTTPSProxy.forHost(endpoints.mcsHost, environment: ProcessInfo.processInfo.environment)
        var port = endpoints.mcsPort
        let connection: MCSConnection
        do {
            connection = try await MCSConnection.open(host: endpoints.mcsHost, port: port, tls: tls, proxy: proxy)
        } catch where endpoints.mcsFallbackPort != endpoints.mcsPort && !(error is CancellationError) {
            // Networks that block 5228 usually let 443 through, as Chrome's fallback assumes.
            logger.info("\(name): \(MCSFailure(host: endpoints.mcsHost, port: port, underlying: error)); trying port \(endpoints.mcsFallbackPort)")
            port = endpoints.mcsFallbackPort
            do {
                connection = try await MCSConnection.open(host: endpoints.mcsHost, port: port, tls: tls, proxy: proxy)
            } catch where !(error is CancellationError) {
                throw MCSFailure(host: endpoints.mcsHost, port: port, underlying: error)
            }
        } catch where !(error is CancellationError) {
            throw MCSFailure(host: endpoints.mcsHost, port: port, underlying: error)
        }
        // Nothing may throw between the open and the exchange: the connection is closed by the exchange.
        let liveness = Liveness(limit: .milliseconds(Int(settings.heartbeatSeconds * 1500 + 5000)))
        let woke = Flag()
        do {
            try await exchange(on: connection, registration, settings, ingest: ingest, keys: keys, liveness: liveness,
                               woke: woke, wakesSeen: wakesSeen, health: health, onLogin: onLogin)
        } catch where !(error is CancellationError) && (woke.isRaised || liveness.declaredDead != nil) {
            // Closed on purpose, for the reason thrown below; what the close made fail on its way is not the story.
        } catch let error as LoginRefusal {
            throw error
        } catch let error as FCMSourceError {
            throw error
        } catch let error as ChannelError where error == .ioOnClosedChannel || error == .alreadyClosed {
            throw MCSFailure(host: endpoints.mcsHost, port: port, underlying: FCMSourceError.closedByServer)
        } catch where !(error is CancellationError) {
            throw MCSFailure(host: endpoints.mcsHost, port: port, underlying: error)
        }
        if woke.isRaised { throw FCMSourceError.resumed }
        if let silence = liveness.declaredDead { throw FCMSourceError.dead(seconds: silence) }
    }

    /// Logs in, then reads stanzas until the connection ends: pings both ways, data committed then acknowledged.
    private func exchange(on connection: MCSConnection, _ registration: FCMRegistration, _ settings: FCMSettings,
                          ingest: PushIngest, keys: WebPushKeys, liveness: Liveness, woke: Flag, wakesSeen: Int,
                          health: ConnectionHealth, onLogin: () -> Void) async throws {
        let endpoints = settings.endpoints
        try await connection.channel.executeThenClose { inbound, outbound in
            let writer = MCSWriter(outbound: outbound)
            try await writer.send(.loginRequest(login(registration, settings)))
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask {
                    try await ping(writer, every: settings.heartbeatSeconds, liveness: liveness,
                                   channel: connection.channel.channel)
                }
                tasks.addTask {
                    await wakes.wait(past: wakesSeen)
                    guard !Task.isCancelled else { return }
                    woke.raise()
                    connection.channel.channel.close(promise: nil)
                }
                var decoder = MCSFrameDecoder()
                var pingAnswers = PingAnswers()
                for try await chunk in inbound {
                    decoder.append(chunk.readableBytesView)
                    var received: [(push: DeliveredPush?, id: String)] = []
                    while let message = try decoder.next() {
                        liveness.heard()
                        switch message {
                        case .loginResponse(let response):
                            guard !response.hasError else {
                                throw LoginRefusal(code: response.error.code, message: response.error.message)
                            }
                            acknowledged.confirmedByLogin()
                            onLogin()
                            status.update { $0.state = "connected"; $0.error = nil; $0.connectedSince = Date() }
                            health.loggedIn("connected to \(endpoints.mcsHost) as \(registration.device.mcsDeviceID)")
                            tasks.addTask {
                                try await Task.sleep(for: ConnectionHealth.healthyAfter)
                                health.heldUp()
                            }
                        case .heartbeatPing:
                            // A peer may ping as fast as it can send: one answer stands for the pings of a moment.
                            guard pingAnswers.mayAnswer() else { continue }
                            status.update { $0.lastHeartbeat = Date() }
                            try await writer.send(.heartbeatAck(McsProto_HeartbeatAck()))
                        case .heartbeatAck:
                            status.update { $0.lastHeartbeat = Date() }
                        case .data(let stanza):
                            received.append((open(stanza, keys: keys), stanza.persistentID))
                        case .close:
                            throw FCMSourceError.closedByServer
                        default:
                            break
                        }
                    }
                    guard !received.isEmpty else { continue }
                    // Committed first: only then may Google forget them. A backlog comes as one long read: it is
                    // committed in batches of the relay's size, each acknowledged as it is committed.
                    for batch in stride(from: 0, to: received.count, by: Self.batchSize).map({
                        received[$0..<min($0 + Self.batchSize, received.count)]
                    }) {
                        let pushes = batch.compactMap(\.push)
                        if !pushes.isEmpty { try await ingest.ingest(pushes) }
                        status.update { $0.lastMessage = Date() }
                        let ids = batch.map(\.id).filter { !$0.isEmpty }
                        acknowledged.add(ids)
                        try await writer.send(try MCSMessage.selectiveAck(ids))
                    }
                }
                tasks.cancelAll()
            }
        }
    }

    /// The push in a data stanza; one that cannot be read is handed over as such, so that it is kept in history
    /// (with its sender, its time and why) and then acknowledged: otherwise Google would resend it forever.
    private func open(_ stanza: McsProto_DataMessageStanza, keys: WebPushKeys) -> DeliveredPush? {
        guard !stanza.persistentID.isEmpty else {
            logger.error("\(name): a message from \(stanza.from) has no persistent id; it cannot be acknowledged or told apart from another, and is dropped",
                         metadata: ["message_id": "\(LogMessageID.fcmUnreadable)"])
            return nil
        }
        let source = MessageSource.poll(key: "fcm:" + stanza.persistentID)
        if MCSMessage.appData(stanza, "message_type") == "deleted_messages" {
            logger.warning("\(name): Google dropped messages for this device while it was away (too many, or too old); a sign-in started then must be started again")
            return DeliveredPush(data: [:], source: source, unreadable: PushRejection(.expired,
                "Google dropped messages for this machine (FCM app \(appName)) while it was away, too many or too old: "
                + "a sign-in started then must be started again"))
        }
        do {
            return DeliveredPush(data: try FCMDataMessage.open(stanza, keys: keys), source: source)
        } catch {
            logger.error("\(name): message \(stanza.persistentID) from \(stanza.from) cannot be read: \(error); acknowledged, and listed in pushctl history",
                         metadata: ["message_id": "\(LogMessageID.fcmUnreadable)"])
            return DeliveredPush(data: [:], source: source, unreadable: PushRejection(.malformed,
                "an FCM message from sender \(DisplayText.sanitized(String(stanza.from.prefix(64)))) (FCM app \(appName)) cannot be read: \(error)"))
        }
    }

    private func login(_ registration: FCMRegistration, _ settings: FCMSettings) -> McsProto_LoginRequest {
        var login = McsProto_LoginRequest()
        let androidID = String(registration.device.androidID)
        login.id = "chrome-" + GCMCheckin.chromeVersion
        login.domain = "mcs.android.com"
        login.user = androidID
        login.resource = androidID
        login.authToken = String(registration.device.securityToken)
        login.deviceID = registration.device.mcsDeviceID
        login.networkType = 1
        login.useRmq2 = true
        login.adaptiveHeartbeat = false
        login.authService = .androidID
        var setting = McsProto_Setting()
        setting.name = "new_vc"
        setting.value = "1"
        login.setting = [setting]
        login.receivedPersistentID = acknowledged.carriedByLogin()
        login.heartbeatStat.ip = ""
        login.heartbeatStat.timeout = true
        login.heartbeatStat.intervalMs = Int32(settings.heartbeatSeconds * 1000)
        return login
    }

    /// Pings every `seconds`; a connection that brought no whole stanza (not even the answer to a ping) within the
    /// liveness limit is closed: a dead peer, a NAT mapping gone, a stream trickling a stanza that never ends.
    private func ping(_ writer: MCSWriter, every seconds: Double, liveness: Liveness, channel: any Channel) async throws {
        while true {
            try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            if liveness.isDead() {
                channel.close(promise: nil)
                return
            }
            try await writer.send(.heartbeatPing(McsProto_HeartbeatPing()))
        }
    }
}

enum FCMSourceError: Error, CustomStringConvertible {
    case misconfigured(String)
    case closedByServer
    case dead(seconds: Int)
    /// The machine woke from suspend: the connection was closed to be made again.
    case resumed

    var description: String {
        switch self {
        case .misconfigured(let problem): problem
        case .closedByServer: "MCS closed the connection"
        case .dead(let seconds): "no whole stanza from MCS in \(seconds) s (not even a heartbeat): the connection is dead"
        case .resumed: "the machine woke from suspend"
        }
    }
}

/// MCS answered the login with an error. Only an authentication failure says the registration is no good (Google
/// forgot it); any other code (503: busy) is a reason to try the same registration again later.
struct LoginRefusal: Error, CustomStringConvertible {
    let code: Int32
    let message: String

    var isAuthentication: Bool { code == 401 || code == 403 }

    var description: String { "MCS refused the login (\(code) \(DisplayText.sanitized(String(message.prefix(200)))))" }
}

/// Answers to the peer's pings: at most one a second. Google pings every few minutes; answering a flood ping for
/// ping costs CPU and memory without telling the peer anything more.
struct PingAnswers {
    static let interval: Duration = .seconds(1)
    private var last: ContinuousClock.Instant?

    mutating func mayAnswer(now: ContinuousClock.Instant = .now) -> Bool {
        if let last, now - last < Self.interval { return false }
        last = now
        return true
    }
}

/// Writes stanzas in order; the version byte goes before the first.
actor MCSWriter {
    private let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    private var sentVersion = false

    init(outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) {
        self.outbound = outbound
    }

    func send(_ message: MCSMessage) async throws {
        let frame = try MCSFraming.frame(message, withVersion: !sentVersion)
        sentVersion = true
        try await outbound.write(ByteBuffer(bytes: frame))
    }
}

/// Persistent ids acknowledged since the last login: repeated in the next login's `received_persistent_id`, in
/// case the selective ack was lost with the connection, and forgotten once a login has carried them.
final class AcknowledgedIDs: Sendable {
    private let ids = Mutex<[String]>([])
    private let carried = Mutex<[String]>([])

    /// The most recent ones; Chrome bounds the list the same way.
    static let limit = 200

    func add(_ new: [String]) { ids.withLock { $0 = Array(($0 + new).suffix(Self.limit)) } }

    /// The ids a login repeats, remembered as carried by it until its response confirms them.
    func carriedByLogin() -> [String] {
        let all = ids.withLock { $0 }
        carried.withLock { $0 = all }
        return all
    }

    func confirmedByLogin() {
        let sent = carried.withLock { $0 }
        ids.withLock { current in current.removeAll { sent.contains($0) } }
    }
}

/// The TLS context MCS connections use, made again only when the extra-CA file (its path, or its contents: a rotated
/// corporate CA) changed, not per reconnect.
final class TLSContexts: Sendable {
    private struct Key: Equatable {
        var caFile: String?
        var modified: Date?
    }

    private let cached = Mutex<(key: Key, context: NIOSSLContext)?>(nil)
    /// The system's CAs as a hashed directory (`update-ca-certificates` makes it), from which BoringSSL reads the
    /// one certificate a chain needs when it needs it. NIOSSL's default also parses the whole bundle file into
    /// memory (138 CAs, 1.4 MiB here), for as long as the context lives. Without hash links: NIOSSL's default.
    let systemCADirectory: String

    init(systemCADirectory: String = "/etc/ssl/certs") {
        self.systemCADirectory = systemCADirectory
    }

    func context(caFile: String?) throws -> NIOSSLContext {
        let key = Key(caFile: caFile, modified: caFile.flatMap {
            (try? FileManager.default.attributesOfItem(atPath: $0))?[.modificationDate] as? Date
        })
        return try cached.withLock { cached in
            if let cached, cached.key == key { return cached.context }
            var configuration = TLSConfiguration.makeClientConfiguration()
            if Self.hasHashedCertificates(systemCADirectory) { configuration.trustRoots = .file(systemCADirectory) }
            if let caFile { configuration.additionalTrustRoots = [.file(caFile)] }
            let context = try NIOSSLContext(configuration: configuration)
            cached = (key, context)
            return context
        }
    }

    /// Whether `directory` holds OpenSSL's `<subject hash>.0` links, without which a lookup by directory finds nothing.
    static func hasHashedCertificates(_ directory: String) -> Bool {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).contains {
            $0.hasSuffix(".0") && $0.count == 10 && $0.prefix(8).allSatisfy(\.isHexDigit)
        }
    }
}

/// Raised once, read from another task: why a connection was closed.
final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    func raise() { value.store(true, ordering: .relaxed) }
    var isRaised: Bool { value.load(ordering: .relaxed) }
}

/// When MCS last sent a whole stanza, and whether the connection was given up for its silence.
final class Liveness: Sendable {
    private let limit: Duration
    private let state: Mutex<(last: ContinuousClock.Instant, dead: Bool)>

    init(limit: Duration) {
        self.limit = limit
        state = Mutex((.now, false))
    }

    func heard() { state.withLock { $0.last = .now } }

    /// True once the silence passed the limit (and from then on).
    func isDead() -> Bool {
        state.withLock { state in
            if ContinuousClock.now - state.last > limit { state.dead = true }
            return state.dead
        }
    }

    var declaredDead: Int? { state.withLock { $0.dead } ? Int(limit.components.seconds) : nil }
}
