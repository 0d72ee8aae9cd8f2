import ControlAPI
import Foundation
import Logging
import PushAgentCore
import PushAgentStore
import ServiceLifecycle
import Synchronization

/// privacyIDEA's second transport (protocols.md §4.5): poll-only tokens are polled every `privacyidea_poll_seconds`
/// (a failing server backs off), every token on `pushctl refresh`. Challenges go through the same ingest path as
/// relay pushes, keyed by nonce so polling the same open challenge again changes nothing.
final class PrivacyIDEAPoller: Service, Sendable {
    private let store: AgentStore
    private let http: ProviderHTTP
    private let ingest: PushIngest
    private let interval: Double
    private let backoff: (initial: Double, maximum: Double)
    private let logger: Logger
    /// Per account: when to poll next, and the backoff of its failures.
    private let schedule = Mutex<[String: (next: Date, backoff: Backoff)]>([:])
    private let startedAt = Date()

    init(store: AgentStore, http: ProviderHTTP, ingest: PushIngest, intervalSeconds: Double,
         backoff: (initial: Double, maximum: Double), logger: Logger) {
        self.store = store
        self.http = http
        self.ingest = ingest
        self.interval = intervalSeconds
        self.backoff = backoff
        self.logger = logger
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    for account in try await self.store.accounts(provider: .privacyidea) where self.isDue(account.account) {
                        await self.tend(account)
                    }
                } catch {
                    self.logger.error("privacyIDEA: cannot read the accounts: \(error)")
                }
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    /// Polls every privacyIDEA token now (`POST /v1/refresh`).
    func refresh() async throws -> RefreshResponse {
        var response = RefreshResponse(polled: 0, newApprovals: [], failures: [])
        for account in try await store.accounts(provider: .privacyidea) {
            response.polled += 1
            do {
                response.newApprovals += try await poll(account)
                reschedule(account.account.id, failed: false)
            } catch {
                response.failures.append(.init(accountId: account.account.id, error: "\(error)"))
            }
        }
        return response
    }

    /// One scheduled turn for an account: a poll if the token is poll-only.
    private func tend(_ account: StoredAccount) async {
        let id = account.account.id
        do {
            guard try PrivacyIDEAModule.credentials(of: account).pollOnly else {
                // Relay-token accounts are only polled on refresh; look again in case the account changes.
                reschedule(id, failed: false)
                return
            }
            _ = try await poll(account)
            reschedule(id, failed: false)
        } catch {
            let delay = reschedule(id, failed: true)
            logger.warning("privacyIDEA token of account \(id): \(error); trying again in \(String(format: "%.1f", delay)) s",
                           metadata: ["account_id": "\(id)", "provider": "privacyidea"])
        }
    }

    /// Returns the ids of the approvals the poll created.
    private func poll(_ account: StoredAccount) async throws -> [String] {
        let credentials = try PrivacyIDEAModule.credentials(of: account)
        let response = try await http.send(PrivacyIDEAPoll.request(credentials: credentials, at: Date()))
        var created: [String] = []
        for data in try PrivacyIDEAPoll.challenges(from: response.body) {
            let key = "privacyidea:" + (data["nonce"] ?? "(no nonce)")
            if case .created(let approval) = try await ingest.ingest(data, from: .poll(key: key)) {
                created.append(approval.id)
            }
        }
        return created
    }

    /// Tokens known at start are polled at once (challenges may have come while the agent was down); a token
    /// enrolled while it runs has nothing open yet and waits one interval (or a `pushctl refresh`).
    private func isDue(_ account: Account) -> Bool {
        let first = account.createdAt > startedAt ? account.createdAt.addingTimeInterval(interval) : .distantPast
        return schedule.withLock { ($0[account.id]?.next ?? first) <= Date() }
    }

    /// Schedules the account's next turn: one interval away, or further while its server keeps failing.
    @discardableResult
    private func reschedule(_ id: String, failed: Bool) -> Double {
        schedule.withLock { schedule in
            var backoff = schedule[id]?.backoff ?? Backoff(initial: self.backoff.initial, maximum: self.backoff.maximum)
            let delay = failed ? max(interval, backoff.next()) : interval
            if !failed { backoff.reset() }
            schedule[id] = (Date().addingTimeInterval(delay), backoff)
            return delay
        }
    }
}
