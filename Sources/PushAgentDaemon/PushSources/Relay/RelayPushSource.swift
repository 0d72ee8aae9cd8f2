import ControlWire
import Foundation
import Logging
import PushAgentStore
import RelayWire
import SystemdSupport

/// The relay's long-poll as a push source: registers with the relay when needed and long-polls it. A poll
/// acknowledges everything up to its cursor, and the cursor moves only with the store's commit of a message, so
/// the relay keeps what the agent has not committed.
struct RelayPushSource: PushSource {
    let client: RelayDeviceClient
    let config: LiveConfig
    let store: AgentStore
    let relayState: RelayStateBox
    let events: EventBus
    let heartbeat: Heartbeat
    let tokenUpdater: PushTokenUpdater
    /// Wakes from suspend (SleepWatcher): a long poll that slept is cancelled and made again at once.
    let wakes: WakeCounter
    let logger: Logger

    var name: String { RelayStatus.sourceName }

    func run(into ingest: PushIngest) async throws {
        // A relay that is down for hours is said once, then counted every 10 minutes, not a line a retry.
        let health = ConnectionHealth(name: "relay", backoff: Backoff(config.current), logger: logger,
                                      metadata: ["message_id": "\(LogMessageID.relayStateChanged)"])
        while !Task.isCancelled {
            let wakesSeen = wakes.count
            do {
                try await pollOnce(into: ingest)
                // The relay answered: "connected" is said by the state's change.
                health.succeeded()
            } catch is CancellationError {
                return
            } catch {
                let delay = health.failed("\(error)", backoff: Backoff(config.current))
                await setState(.backoff, error: "\(error)", nextTry: Date().addingTimeInterval(delay))
                // A wake cuts the wait short: the network that failed may be another one now.
                do { _ = try await wakes.unlessWoken(past: wakesSeen) { try await sleepBeating(seconds: delay) } } catch { return }
            }
        }
    }

    func health() -> PushSourceStatus {
        let status = relayState.current
        return PushSourceStatus(name: name, state: status.state.rawValue, detail: status.lastError,
                                lastReceivedAt: relayState.lastDeliveryAt)
    }

    /// One registration check and one long-poll; every message of the batch is committed (together, when it is a
    /// burst) before the next poll acks it.
    private func pollOnce(into ingest: PushIngest) async throws {
        let device = try await registeredDevice()
        let cursor = try await store.cursor()
        // Until a poll has succeeded, ask without holding, so the state shows "connected" as soon as it is true.
        let wait = relayState.current.state == .connected ? config.current.pollWaitSeconds : 0
        let wakesSeen = wakes.count
        let batch: PollReply
        do {
            guard let reply = try await wakes.unlessWoken(past: wakesSeen, { [client] in
                try await client.poll(deviceId: device.deviceId, secret: device.secret, after: cursor, waitSeconds: wait)
            }) else {
                logger.notice("relay: the machine woke from suspend; polling again now",
                              metadata: ["message_id": "\(LogMessageID.relayStateChanged)"])
                return
            }
            batch = reply
        } catch RelayError.unknownDevice {
            try await reRegister(replacing: device)
            return
        } catch RelayError.cursorAhead(let explanation) {
            try await resync(from: cursor, because: "the relay never delivered seq \(cursor): \(explanation)")
            return
        }
        heartbeat.beat()
        await setState(.connected, error: nil, nextTry: nil)
        await TestFault.stall(.hangRelayLoop)
        var start = cursor
        if let backwards = batch.messages.map(\.seq).min(), backwards <= cursor {
            // Skipping them would acknowledge every message up to the cursor unseen at the next poll.
            try await resync(from: cursor, because: "asked for messages after seq \(cursor), the relay sent seq \(backwards)")
            start = 0
        }
        let fresh = batch.messages.sorted(by: { $0.seq < $1.seq }).filter { $0.seq > start }
        guard !fresh.isEmpty else { return }
        try await ingest.ingest(fresh.map { message in
            DeliveredPush(data: message.data, source: .relay(id: message.id, seq: message.seq),
                          expiresAt: Date(timeIntervalSince1970: Double(message.expiresAt) / 1000))
        })
        relayState.delivered(at: Date())
    }

    /// The relay's sequence went backwards (restored from an older backup) or the cursor jumped past anything the
    /// relay gave out (a forged reply): start over from the relay's queue, so no message is acknowledged unseen.
    private func resync(from cursor: Int64, because reason: String) async throws {
        try await store.resetCursor()
        let changed = relayState.update { status in
            status.resyncedAt = Date()
            status.resyncReason = reason
        }
        logger.critical("relay: sequence numbers out of step (\(reason)); starting over from the relay's queue at seq 0. Messages already received are recognized, none is lost",
                        metadata: ["message_id": "\(LogMessageID.relayResynced)", "cursor": "\(cursor)"])
        if let changed { await events.publish(.relayState(changed)) }
    }

    private func registeredDevice() async throws -> DeviceIdentity {
        if let device = try await store.deviceIdentity(), device.relayURL == client.baseURL { return device }
        let hadDevice = try await store.deviceIdentity() != nil
        return try await register(markAccounts: hadDevice)
    }

    private func reRegister(replacing old: DeviceIdentity) async throws {
        logger.critical("relay: device \(old.deviceId) is unknown to the relay; registering again. The push token changes: providers of enrolled accounts must be told the new token",
                        metadata: ["message_id": "\(LogMessageID.tokenChanged)"])
        _ = try await register(markAccounts: true)
    }

    private func register(markAccounts: Bool) async throws -> DeviceIdentity {
        await setState(.registering, error: nil, nextTry: nil)
        let settings = config.current
        let registration = try await client.register(name: settings.deviceName, registrationKey: settings.relayRegistrationKey)
        let identity = DeviceIdentity(relayURL: client.baseURL, deviceId: registration.deviceID, token: registration.token,
                                      secret: registration.secret, registeredAt: Date())
        try await store.saveDeviceIdentity(identity, markAccountsForTokenUpdate: markAccounts)
        if markAccounts { tokenUpdater.tokenChanged() }
        logger.notice("relay: registered as device \(registration.deviceID)",
                      metadata: ["message_id": "\(LogMessageID.tokenChanged)", "device_id": "\(registration.deviceID)"])
        if markAccounts {
            for account in try await store.accounts() {
                await events.publish(.accountChanged(account))
            }
        }
        return identity
    }

    private func setState(_ state: RelayStatus.State, error: String?, nextTry: Date?) async {
        let changed = relayState.update { status in
            status.state = state
            status.lastError = error ?? (state == .connected ? nil : status.lastError)
            status.nextTryAt = nextTry
            if state == .connected { status.lastContactAt = Date() }
        }
        if let changed {
            await events.publish(.relayState(changed))
            if state == .connected {
                logger.notice("relay: connected to \(changed.url)", metadata: ["message_id": "\(LogMessageID.relayStateChanged)"])
            }
        }
    }

    /// Sleeps through a backoff while still proving to the watchdog that the loop is alive.
    private func sleepBeating(seconds: Double) async throws {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            heartbeat.beat()
            try await Task.sleep(until: min(deadline, .now + .seconds(5)))
        }
    }
}
