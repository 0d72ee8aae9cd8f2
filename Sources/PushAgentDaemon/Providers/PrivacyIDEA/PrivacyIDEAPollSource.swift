import ControlWire
import Foundation
import Logging
import PushAgentCore
import PushAgentStore
import Synchronization

/// privacyIDEA's second transport (protocols.md §4.5), a push source of its own (one per provider of the dialect):
/// poll-only tokens, and those whose URI did not say (eduMFA's, §9.1), are polled every
/// `privacyidea_poll_seconds` (a failing server backs off), every token on `pushctl refresh`. A poll's challenges go to
/// ingest as one batch, keyed by nonce, so polling the same open challenge again changes nothing.
final class PrivacyIDEAPollSource: PushSource {
    private let provider: ProviderDescription
    private let store: AgentStore
    private let http: ProviderHTTP
    private let config: LiveConfig
    private let logger: Logger
    /// Per account: when to poll next, and the backoff of its failures.
    private let schedule = Mutex<[String: (next: Date, backoff: Backoff)]>([:])
    /// What `pushctl status` tells: when a poll last brought a challenge, which poll-only tokens there are, and why
    /// those failing fail.
    private let progress = Mutex<(lastReceivedAt: Date?, polled: Set<String>, failing: [String: String])>(
        (nil, [], [:]))
    private let startedAt = Date()

    init(provider: ProviderDescription, store: AgentStore, http: ProviderHTTP, config: LiveConfig, logger: Logger) {
        self.provider = provider
        self.store = store
        self.http = http
        self.config = config
        self.logger = logger
    }

    var name: String { "\(provider.provider)-poll" }

    func run(into ingest: PushIngest) async throws {
        while !Task.isCancelled {
            do {
                let accounts = try await store.accounts(provider: provider.provider)
                let enrolled = Set(accounts.map(\.account.id))
                progress.withLock { progress in
                    progress.polled.formIntersection(enrolled)
                    progress.failing = progress.failing.filter { enrolled.contains($0.key) }
                }
                for account in accounts where isDue(account.account) {
                    await tend(account, ingest: ingest)
                }
            } catch {
                logger.error("\(provider.displayName): cannot read the accounts: \(error)")
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// Polls every token of its provider now (`POST /v1/refresh`).
    func refresh(into ingest: PushIngest) async throws -> RefreshResponse? {
        var response = RefreshResponse()
        for account in try await store.accounts(provider: provider.provider) {
            response.polled += 1
            do {
                response.newApprovals += try await poll(account, into: ingest)
                reschedule(account.account.id, failed: nil)
            } catch {
                response.failures.append(.init(accountId: account.account.id, error: error))
            }
        }
        return response
    }

    func health() -> PushSourceStatus {
        let (lastReceivedAt, polled, failing) = progress.withLock { $0 }
        guard !polled.isEmpty else {
            return PushSourceStatus(name: name, state: "idle", detail: "no polled \(provider.displayName) token",
                                    lastReceivedAt: lastReceivedAt)
        }
        let every = "\(polled.count) polled token(s) every \(config.current.providers.privacyIDEA.pollSeconds) s"
        guard !failing.isEmpty else {
            return PushSourceStatus(name: name, state: "polling", detail: every, lastReceivedAt: lastReceivedAt)
        }
        let problems = failing.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "; ")
        return PushSourceStatus(name: name, state: "backoff", detail: "\(every); failing: \(problems)",
                                lastReceivedAt: lastReceivedAt)
    }

    /// One scheduled turn for an account: a poll if the token is poll-only, or its URI did not say.
    private func tend(_ account: StoredAccount, ingest: PushIngest) async {
        let id = account.account.id
        do {
            let polled = try PrivacyIDEAModule.credentials(of: account).pollsOnSchedule
            progress.withLock { progress in
                if polled { progress.polled.insert(id) } else { progress.polled.remove(id) }
            }
            guard polled else {
                // Relay-token accounts are only polled on refresh; look again in case the account changes.
                reschedule(id, failed: nil)
                return
            }
            _ = try await poll(account, into: ingest)
            reschedule(id, failed: nil)
        } catch {
            let delay = reschedule(id, failed: "\(error)")
            logger.warning("\(provider.displayName) token of account \(id): \(error); trying again in \(String(format: "%.1f", delay)) s",
                           metadata: ["account_id": "\(id)", "provider": "\(provider.provider)"])
        }
    }

    /// Returns the ids of the approvals the poll created.
    private func poll(_ account: StoredAccount, into ingest: PushIngest) async throws -> [String] {
        let credentials = try PrivacyIDEAModule.credentials(of: account)
        let response = try await http.send(PrivacyIDEAPoll.request(credentials: credentials, at: Date()))
        let pushes = try PrivacyIDEAPoll.challenges(from: response.body).map { data in
            DeliveredPush(data: data, source: .poll(key: "\(provider.provider):" + (data["nonce"] ?? "(no nonce)")))
        }
        guard !pushes.isEmpty else { return [] }
        let created = try await ingest.ingest(pushes).compactMap { outcome -> String? in
            guard case .created(let approval) = outcome else { return nil }
            return approval.id
        }
        if !created.isEmpty { progress.withLock { $0.lastReceivedAt = Date() } }
        return created
    }

    /// Tokens known at start are polled at once (challenges may have come while the agent was down); a token
    /// enrolled while it runs has nothing open yet and waits one interval (or a `pushctl refresh`).
    private func isDue(_ account: Account) -> Bool {
        let interval = config.current.providers.privacyIDEA.pollSeconds
        let first = account.createdAt > startedAt ? account.createdAt.addingTimeInterval(interval) : .distantPast
        return schedule.withLock { ($0[account.id]?.next ?? first) <= Date() }
    }

    /// Schedules the account's next turn: one interval away, or further while its server keeps failing (`failed`
    /// says why).
    @discardableResult
    private func reschedule(_ id: String, failed: String?) -> Double {
        let settings = config.current
        let interval = settings.providers.privacyIDEA.pollSeconds
        progress.withLock { $0.failing[id] = failed }
        return schedule.withLock { schedule in
            var backoff = schedule[id]?.backoff ?? Backoff(settings)
            let delay = failed != nil ? max(interval, backoff.next()) : interval
            if failed == nil { backoff.reset() }
            schedule[id] = (Date().addingTimeInterval(delay), backoff)
            return delay
        }
    }
}
