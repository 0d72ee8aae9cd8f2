import ControlWire
import Foundation
import Logging
import PushAgentCore
import PushAgentStore
import ServiceLifecycle
import Synchronization

/// When the relay registration changes, the push token changes with it, and each provider keeps pushing to the old
/// one until told (the same for an FCM registration and the accounts on it). This tells the provider of every flagged account, through its module: at start (accounts flagged
/// before a restart), whenever the relay poller registers again, and after a network failure with the relay's
/// backoff. A provider that refuses, or cannot be told at all, leaves its account flagged with what the user must
/// do (shown by `pushctl accounts`) and is not asked again until the next start or token change.
final class PushTokenUpdater: Service, Sendable {
    private let store: AgentStore
    private let modules: ProviderModules
    private let events: EventBus
    private let deviceName: String
    private let config: LiveConfig
    private let logger: Logger
    private let wakes: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation
    /// Per account that failed: when to try again, and its backoff. `next` nil: not in this run.
    private let retries = Mutex<[String: (next: Date?, backoff: Backoff)]>([:])

    init(store: AgentStore, modules: ProviderModules, events: EventBus, deviceName: String,
         config: LiveConfig, logger: Logger) {
        self.store = store
        self.modules = modules
        self.events = events
        self.deviceName = deviceName
        self.config = config
        self.logger = logger
        (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// The device registered again: every flagged account is due now, including those that failed before.
    func tokenChanged() {
        retries.withLock { $0.removeAll() }
        wake.yield()
    }

    /// Accounts were added already flagged (a restore): they are due now; accounts that failed keep their backoff.
    func accountsFlagged() { wake.yield() }

    func run() async throws {
        wake.yield()
        await cancelWhenGracefulShutdown {
            var retryTimer: Task<Void, Never>?
            for await _ in self.wakes {
                retryTimer?.cancel()
                guard let retryAt = await self.updateDueAccounts() else { continue }
                retryTimer = Task { [wake = self.wake] in
                    try? await Task.sleep(for: .seconds(max(0, retryAt.timeIntervalSinceNow)))
                    if !Task.isCancelled { wake.yield() }
                }
            }
            retryTimer?.cancel()
        }
    }

    /// Returns when the earliest failed account is due again, if any is.
    private func updateDueAccounts() async -> Date? {
        let flagged: [StoredAccount]
        let device: DeviceIdentity?
        do {
            flagged = try await store.accountsNeedingTokenUpdate()
            device = try await store.deviceIdentity()
        } catch {
            logger.error("push token update: cannot read the accounts: \(error)")
            return Date().addingTimeInterval(config.current.backoffMaxSeconds)
        }
        guard let device, !flagged.isEmpty else { return nil }
        var earliest: Date?
        for account in flagged {
            let id = account.account.id
            let next = retries.withLock { $0[id] }.map { $0.next ?? .distantFuture }
            if let next, next > Date() {
                if next != .distantFuture { earliest = min(earliest ?? next, next) }
                continue
            }
            // An account on FCM is told its FCM token; until there is a registration, it waits for one.
            var target = device
            guard let token = try? await store.pushToken(for: account.account) else { continue }
            target.token = token
            if let retryAt = await update(account, to: target) { earliest = min(earliest ?? retryAt, retryAt) }
        }
        return earliest
    }

    /// Returns when to try again if the provider could not be reached.
    private func update(_ stored: StoredAccount, to device: DeviceIdentity) async -> Date? {
        let account = stored.account
        guard let module = modules[account.provider] else { return nil }
        let outcome: PushTokenUpdate
        do {
            outcome = try await module.updatePushToken(of: stored, device: device, deviceName: deviceName)
        } catch {
            if Task.isCancelled { return nil }
            guard case AnswerFailure.retryable(let cause) = error else {
                await giveUp(account, "\(account.provider.displayName) refused the new push token (\(error)): remove the account (`pushctl remove \(account.id)`) and enroll it again")
                return nil
            }
            return await retryLater(account, cause: cause)
        }
        switch outcome {
        case .updated(let credentials):
            retries.withLock { $0[account.id] = nil }
            do {
                guard try await store.finishTokenUpdate(accountId: account.id, credentials: credentials,
                                                        sentToken: device.token) else { return nil }
            } catch {
                logger.error("push token update of account \(account.id) done, but not stored: \(error)")
                return nil
            }
            logger.notice("\(account.provider.displayName) now pushes to the new token for account \(account.id)",
                          metadata: Self.metadata(account))
            await publishChange(of: account.id)
        case .impossible(let instruction):
            await giveUp(account, instruction)
        }
        return nil
    }

    /// Not again in this run: the account stays flagged with what the user must do.
    private func giveUp(_ account: Account, _ instruction: String) async {
        retries.withLock { $0[account.id] = (nil, Backoff(config.current)) }
        try? await store.recordTokenUpdateProblem(accountId: account.id, instruction)
        logger.warning("account \(account.id) gets no pushes until this is done: \(instruction)",
                       metadata: Self.metadata(account))
        await publishChange(of: account.id)
    }

    private func retryLater(_ account: Account, cause: String) async -> Date {
        let delay = retries.withLock { retries in
            var backoff = retries[account.id]?.backoff ?? Backoff(config.current)
            let delay = backoff.next()
            retries[account.id] = (Date().addingTimeInterval(delay), backoff)
            return delay
        }
        let problem = "\(account.provider.displayName) could not be told the new push token: \(cause)"
        try? await store.recordTokenUpdateProblem(accountId: account.id, problem + " (retrying)")
        logger.warning("\(problem); trying again in \(String(format: "%.1f", delay)) s", metadata: Self.metadata(account))
        await publishChange(of: account.id)
        return Date().addingTimeInterval(delay)
    }

    private static func metadata(_ account: Account) -> Logger.Metadata {
        ["account_id": "\(account.id)", "provider": "\(account.provider.rawValue)",
         "message_id": "\(LogMessageID.providerTokenUpdate)"]
    }

    private func publishChange(of accountId: String) async {
        guard let account = try? await store.account(matching: accountId).account else { return }
        await events.publish(.accountChanged(account))
    }
}
