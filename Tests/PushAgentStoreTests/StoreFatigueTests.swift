import Foundation
import GRDB
import PushAgentCore
@testable import PushAgentStore
import Testing

/// The store's push bombing decisions (AgentStore+Fatigue), on a real SQLite file, with the clock given.
struct StoreFatigueTests {
    let budget = PushBudget(limit: 2, window: 60)
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    func withStore(_ body: (AgentStore) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fatigue-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try AgentStore(directory: directory)
        for id in ["acc_a", "acc_b"] {
            try await store.addAccount(Account(id: id, provider: .forgerock, issuer: "i", name: id, createdAt: start, hasTOTP: false),
                                       lookupKey: id, credentials: Data("{}".utf8), totp: nil)
        }
        try await body(store)
    }

    func push(_ store: AgentStore, _ key: String, account: String = "acc_a", message: String? = nil, at time: Date,
              budget: PushBudget? = nil) async throws -> MessageOutcome {
        let draft = ApprovalDraft(provider: .forgerock, accountId: account, kind: .prompt, numbers: nil, title: "Sign in?",
                                  message: message ?? "attempt \(key)", context: ApprovalContext(ip: "192.0.2.1"),
                                  requestedAt: time, expiresAt: time.addingTimeInterval(600), dedupeKey: key,
                                  answerContext: Data("{}".utf8))
        return try await store.commitMessage(source: .relay(id: "msg-\(key)", seq: 0), result: .success(.approval(draft)),
                                             provider: .forgerock, budget: budget ?? self.budget, now: time)
    }

    func reason(_ outcome: MessageOutcome) -> PushRejection.Reason? {
        if case .autoDenied(let stored, let rejection) = outcome {
            #expect(stored.approval.state == .denying && stored.approval.resolution?.byUid == nil)
            return rejection.reason
        }
        return nil
    }

    @Test func theBudgetCountsAdmittedPushesPerAccountWithinTheWindow() async throws {
        try await withStore { store in
            #expect(reason(try await push(store, "1", at: start)) == nil)
            #expect(reason(try await push(store, "2", at: start + 10)) == nil)
            let third = try await push(store, "3", at: start + 20)
            #expect(reason(third) == .rateLimited)
            if case .autoDenied(let stored, _) = third { #expect(stored.approval.resolution?.automatic == .rateLimited) }
            #expect(reason(try await push(store, "4", at: start + 30)) == .rateLimited)
            #expect(reason(try await push(store, "b1", account: "acc_b", at: start + 30)) == nil, "budgets are per account")
            // Denied pushes do not count: once the admitted ones leave the window, the user's sign-in gets through.
            #expect(reason(try await push(store, "5", at: start + 65)) == nil)
            #expect(reason(try await push(store, "6", at: start + 66)) == .rateLimited)
            #expect(reason(try await push(store, "7", at: start + 66, budget: PushBudget(limit: 0, window: 60))) == nil,
                    "limit 0 admits everything")

            let rejected = try await store.auditEntries(event: "push_rejected")
            #expect(rejected.count == 3)
            #expect(rejected.allSatisfy { $0.detail?.contains("rate_limited") == true })
            #expect(try await store.unfinishedAnswers().count == 3, "their denies are still to be sent, after a restart too")
        }
    }

    @Test func aMutedAccountsPushesAreDeniedAsFraudUntilTheMuteEnds() async throws {
        try await withStore { store in
            let muted = try await store.setMute(accountMatching: "acc_a", until: start + 600, reason: "fraud reported")
            #expect(muted.mutedUntil == start + 600 && muted.muteReason == "fraud reported" && muted.isMuted(at: start))
            let outcome = try await push(store, "1", at: start + 1)
            #expect(reason(outcome) == .muted)
            if case .autoDenied(let stored, _) = outcome {
                #expect(stored.approval.resolution?.reason == .fraud && stored.approval.resolution?.automatic == .muted)
            }
            #expect(reason(try await push(store, "b", account: "acc_b", at: start + 1)) == nil)
            #expect(reason(try await push(store, "2", at: start + 601)) == nil, "the mute ended")
            _ = try await store.setMute(accountMatching: "acc_a", until: start + 9999, reason: "again")
            let unmuted = try await store.setMute(accountMatching: "acc_a", until: nil, reason: "ignored")
            #expect(unmuted.mutedUntil == nil && unmuted.muteReason == nil)
        }
    }

    @Test func aNewLookAlikeSupersedesTheOlderPendingOnes() async throws {
        try await withStore { store in
            let noBudget = PushBudget(limit: 0, window: 60)
            for key in ["1", "2"] { _ = try await push(store, key, message: "same", at: start, budget: noBudget) }
            _ = try await push(store, "other", message: "different", at: start, budget: noBudget)
            _ = try await push(store, "b", account: "acc_b", message: "same", at: start, budget: noBudget)
            guard case .created(let newest) = try await push(store, "3", message: "same", at: start, budget: noBudget) else {
                Issue.record("expected an approval"); return
            }
            let superseded = try await store.supersedeSimilar(to: newest)
            #expect(superseded.count == 2)
            #expect(superseded.allSatisfy { $0.approval.state == .denying && $0.approval.resolution?.automatic == .superseded })
            let pending = try await store.approvals(state: .pending).map(\.message).sorted()
            #expect(pending == ["different", "same", "same"], "the newest, the different one and the other account's")
            #expect(try await store.supersedeSimilar(to: newest).isEmpty)
        }
    }

    /// A batch (one relay poll, one privacyIDEA poll) commits all its look-alikes before the defence handles the first:
    /// handling them in order must leave the newest pending, not deny it for an older one (nor leave none).
    @Test func lookAlikesCommittedTogetherLeaveTheNewestPending() async throws {
        try await withStore { store in
            let noBudget = PushBudget(limit: 0, window: 60)
            var created: [Approval] = []
            for key in ["1", "2", "3"] {
                guard case .created(let approval) = try await push(store, key, message: "same", at: start, budget: noBudget) else {
                    Issue.record("expected an approval"); return
                }
                created.append(approval)
            }
            for approval in created { _ = try await store.supersedeSimilar(to: approval) }
            let pending = try await store.approvals(state: .pending)
            #expect(pending.map(\.id) == [created[2].id], "only the newest stays: \(pending.map(\.message))")
        }
    }

    /// Every approval a push creates looks for its look-alikes: through an index of the pending ones, not by reading
    /// every pending approval of the account, which a burst piles up (pushbench's 1,000 were a quadratic cost).
    @Test func theLookAlikeSearchReadsAnIndexOfThePendingOnes() async throws {
        try await withStore { store in
            func plan(_ sql: String, _ arguments: StatementArguments) async throws -> [String] {
                try await store.pool.read { db in
                    try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments).map { $0["detail"] as String }
                }
            }
            let search = try await plan(AgentStore.lookAlikesSQL, ["apr_1"])
            #expect(search == ["SEARCH newest USING INDEX sqlite_autoindex_approval_1 (id=?)",
                               "SEARCH older USING INDEX approval_pending_look_alike (account_id=? AND similarity_key=? AND rowid<?)"],
                    "\(search)")
            let check = try await plan(AgentStore.anyOlderLookAlikeSQL, ["apr_1"])
            #expect(check.contains("SEARCH older USING INDEX approval_pending_look_alike (account_id=? AND similarity_key=? AND rowid<?)"),
                    "\(check)")
        }
    }

    @Test func pushesDeniedForTheBudgetOrAMuteAreInHistoryOnceAsRejections() async throws {
        try await withStore { store in
            _ = try await store.setMute(accountMatching: "acc_a", until: start + 600, reason: "r")
            guard case .autoDenied(let stored, _) = try await push(store, "1", at: start + 1) else {
                Issue.record("expected a denial"); return
            }
            _ = try await store.transition(stored.approval.id, to: .denied, now: start + 2)
            #expect(try await store.resolvedApprovals(limit: 10).isEmpty)
            #expect(try await store.auditEntries(event: "push_rejected").count == 1)
        }
    }
}
