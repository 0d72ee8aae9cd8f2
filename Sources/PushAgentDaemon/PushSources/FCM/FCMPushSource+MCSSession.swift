import ControlWire
import Foundation
import Logging
import NIOCore
import NIOSSL
import PushAgentCore
import PushAgentStore
import Synchronization
import SystemdSupport

/// One MCS connection of an FCM push source: TLS (through a proxy when one is set), the login, stanzas in and
/// acknowledgements out, pings, and its end.
extension FCMPushSource {
    func session(_ registration: FCMRegistration, _ settings: FCMSettings, ingest: PushIngest, wakesSeen: Int,
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
    func exchange(on connection: MCSConnection, _ registration: FCMRegistration, _ settings: FCMSettings,
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
    func open(_ stanza: McsProto_DataMessageStanza, keys: WebPushKeys) -> DeliveredPush? {
        guard !stanza.persistentID.isEmpty else {
            logger.error("\(name): a message from \(stanza.from) has no persistent id; it cannot be acknowledged or told apart from another, and is dropped",
                         metadata: ["message_id": "\(LogMessageID.fcmUnreadable)"])
            return nil
        }
        let source = MessageSource.fcm(persistentID: stanza.persistentID)
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

    func login(_ registration: FCMRegistration, _ settings: FCMSettings) -> McsProto_LoginRequest {
        .chrome(device: registration.device, receivedPersistentIDs: acknowledged.carriedByLogin(),
                heartbeatSeconds: settings.heartbeatSeconds)
    }

    /// Pings every `seconds`; a connection that brought no whole stanza (not even the answer to a ping) within the
    /// liveness limit is closed: a dead peer, a NAT mapping gone, a stream trickling a stanza that never ends.
    func ping(_ writer: MCSWriter, every seconds: Double, liveness: Liveness, channel: any Channel) async throws {
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
