import ControlWire
import Foundation
import Logging
import PushAgentCore
import PushAgentStore

/// A push as a source hands it over: its data, and where it came from (what recognises it when it comes again).
struct DeliveredPush: Sendable {
    var data: [String: String]
    var source: MessageSource
    /// Why the source could not read the push at all (an FCM message that does not decrypt): it is committed as
    /// rejected all the same, so `pushctl history` tells the user, and acknowledged like any other.
    var unreadable: PushRejection? = nil
    /// When its sender's TTL runs out, where the source says (the relay does): a Web Push message is not handed to its
    /// reader after that.
    var expiresAt: Date? = nil
}

/// Takes delivered pushes through router → dialect handler → store (one transaction) → subscribers, whichever
/// source they came from; the relay's Web Push messages go to their subscriptions' inbox instead, never to a provider.
struct PushIngest: Sendable {
    let store: AgentStore
    let modules: ProviderModules
    let events: EventBus
    let webPush: WebPushInbox
    let logger: Logger
    /// Push bombing defences; nil admits every push (unit tests of the pipeline alone).
    var fatigue: PushFatigueDefence? = nil

    /// Takes a batch to the store in order, each push exactly once; returns what became of the pushes not committed
    /// before. Pushes taken up for the first time are committed together, in one transaction (a burst costs one disk
    /// flush); one taken up before and never committed (the daemon crashed on the way?) is committed alone, after
    /// those before it, so a push that crashes the daemon cannot take the others of its batch down with it when it is
    /// dropped after `maximumAttempts`.
    ///
    /// Web Push messages and provider pushes are taken in runs, in the batch's order: the relay cursor then never
    /// passes a message of either kind before it is committed.
    @discardableResult
    func ingest(_ pushes: [DeliveredPush], now: Date = Date()) async throws -> [MessageOutcome] {
        var outcomes: [MessageOutcome] = []
        var rest = pushes[...]
        while let first = rest.first {
            let isWebPush = WebPushInbox.claims(first)
            let run = Array(rest.prefix { WebPushInbox.claims($0) == isWebPush })
            rest = rest.dropFirst(run.count)
            if isWebPush { try await webPush.receive(run, now: now) } else { outcomes += try await ingestProviderPushes(run, now: now) }
        }
        return outcomes
    }

    private func ingestProviderPushes(_ pushes: [DeliveredPush], now: Date) async throws -> [MessageOutcome] {
        var outcomes: [MessageOutcome] = []
        var firstAttempts: [MessageCommit] = []
        for push in pushes {
            guard let (commit, attempt) = try await prepare(push, now: now) else { continue }
            if attempt == 1 {
                firstAttempts.append(commit)
                continue
            }
            outcomes += try await self.commit(firstAttempts, now: now)
            firstAttempts = []
            outcomes += try await self.commit([commit], now: now)
        }
        return outcomes + (try await commit(firstAttempts, now: now))
    }

    /// Verifies a message and counts the attempt at it; nil for one already committed.
    private func prepare(_ push: DeliveredPush, now: Date) async throws -> (MessageCommit, attempt: Int)? {
        let (data, source) = (push.data, push.source)
        // A redelivery of something already committed (crash before the ack, the same challenge polled again)
        // needs no verification again.
        if try await store.isProcessed(source) {
            switch source {
            case .relay(_, let seq):
                try await store.advanceCursor(to: seq)
                logger.info("relay message already processed; acknowledged again", metadata: Self.metadata(source))
            case .poll:
                // Every poll returns the open challenges again until they are answered: not worth a log line.
                break
            case .fcm(let persistentID):
                logger.info("FCM message \(persistentID) already processed; acknowledged again", metadata: Self.metadata(source))
            }
            return nil
        }
        let attempt = try store.beginAttempt(source, now: now)
        let (provider, result): (Provider?, Result<PushEffect, PushRejection>) = if let unreadable = push.unreadable {
            (nil, .failure(unreadable))
        } else if attempt.number > Self.maximumAttempts {
            (PushRouter.route(data), .failure(Self.unprocessable(after: attempt)))
        } else {
            await effect(of: data, receivedAt: now)
        }
        return (MessageCommit(source: source, result: result, provider: provider), attempt.number)
    }

    /// Commits the messages in one transaction, then tells subscribers and the push bombing defences.
    @discardableResult
    private func commit(_ messages: [MessageCommit], now: Date) async throws -> [MessageOutcome] {
        guard !messages.isEmpty else { return [] }
        TestFault.trigger(.killBeforeCommit)
        let outcomes: [MessageOutcome]
        do {
            outcomes = try await store.commitMessages(messages, budget: fatigue?.budget ?? .unlimited, now: now)
        } catch {
            for message in messages { try? store.recordAttemptFailure(message.source, "\(error)") }
            throw error
        }
        TestFault.trigger(.killAfterCommit)
        for (message, outcome) in zip(messages, outcomes) {
            report(outcome, source: message.source, provider: message.provider)
            switch outcome {
            case .created(let approval): await events.publish(.approvalCreated(approval))
            case .requestUpdated(let request): await events.publish(.requestUpdated(request))
            case .duplicate, .rejected, .autoDenied: break
            }
            // The message is committed: a failure here must not make the relay deliver it again.
            do { try await fatigue?.handle(outcome, now: now) } catch {
                logger.error("push bombing defences failed after a push was committed: \(error)",
                             metadata: Self.metadata(message.source))
            }
        }
        return outcomes
    }

    /// Attempts at one message before it is dropped: enough to ride out a restart or a passing store error, few
    /// enough that a push which crashes the daemon stops every other push for seconds, not for good.
    static let maximumAttempts = 3

    private static func unprocessable(after attempt: (number: Int, lastError: String?)) -> PushRejection {
        let cause = attempt.lastError.map { "the last one failed: \($0)" }
            ?? "the daemon stopped during each of them (a crash?)"
        return PushRejection(.unprocessable, "processing this message was attempted \(attempt.number - 1) times and never "
            + "finished; \(cause). It was dropped so later pushes are not held up")
    }

    private func effect(of data: [String: String], receivedAt: Date) async -> (Provider?, Result<PushEffect, PushRejection>) {
        TestFault.trigger(.crashOnMarkedPush, when: data[TestFault.crashMarker] != nil)
        let claimants = PushRouter.claimants(data)
        guard let last = claimants.last else {
            let keys = data.keys.sorted().prefix(10).joined(separator: ", ")
            return (nil, .failure(PushRejection(.unknownDialect, "no dialect matches a push with keys [\(keys)]")))
        }
        // Providers of one family claim the same pushes: the first that has the account the push names takes it.
        for provider in claimants.dropLast() {
            let result = await effect(of: data, by: provider, receivedAt: receivedAt)
            guard case .failure(let rejection) = result, rejection.reason == .unknownAccount else { return (provider, result) }
        }
        return (last, await effect(of: data, by: last, receivedAt: receivedAt))
    }

    private func effect(of data: [String: String], by provider: Provider, receivedAt: Date) async
        -> Result<PushEffect, PushRejection> {
        guard let module = modules[provider] else {
            return .failure(PushRejection(.unknownDialect, "\(provider.rawValue) pushes are not supported yet"))
        }
        do throws(PushRejection) {
            switch try await module.effect(for: data, receivedAt: receivedAt) {
            case .approval(let draft):
                if draft.expiresAt <= receivedAt {
                    throw PushRejection(.expired, "the push expired at \(draft.expiresAt.formatted(.iso8601)) before it arrived")
                }
                return .success(.approval(draft.bounded(receivedAt: receivedAt)))
            case .requestUpdate(let update):
                return .success(.requestUpdate(update))
            }
        } catch {
            return .failure(error)
        }
    }

    private static func metadata(_ source: MessageSource) -> Logger.Metadata {
        switch source {
        case .relay(let id, _): ["relay_message_id": "\(id)"]
        case .poll(let key): ["polled_message": "\(key)"]
        case .fcm(let persistentID): ["fcm_persistent_id": "\(persistentID)"]
        }
    }

    private func report(_ outcome: MessageOutcome, source: MessageSource, provider: Provider?) {
        var metadata = Self.metadata(source)
        if let provider { metadata["provider"] = "\(provider.rawValue)" }
        func log(_ level: Logger.Level, _ message: Logger.Message, _ outcomeMetadata: Logger.Metadata) {
            logger.log(level: level, message, metadata: metadata.merging(outcomeMetadata) { $1 })
        }
        switch outcome {
        case .created(let approval):
            log(.notice, "push received: approval \(approval.id) created (\(approval.kind.rawValue), expires \(approval.expiresAt.formatted(.iso8601)))",
                ["message_id": "\(LogMessageID.approvalCreated)", "approval_id": "\(approval.id)", "account_id": "\(approval.accountId)"])
        case .requestUpdated(let request):
            log(.notice, "push received: request \(request.id) is \(request.state.rawValue)",
                ["request_id": "\(request.id)", "account_id": "\(request.accountId)"])
        case .duplicate(let existing):
            log(.info, "duplicate push ignored", existing.map { ["approval_id": "\($0)"] } ?? [:])
        case .autoDenied(let stored, let rejection):
            // One line per push would flood the journal in a burst: the burst's warning stands for them.
            log(.info, "push denied unseen: \(rejection.message)",
                ["approval_id": "\(stored.approval.id)", "account_id": "\(stored.approval.accountId)",
                 "reason": "\(rejection.reason.rawValue)"])
        case .rejected(let rejection):
            log(.warning, "push rejected: \(rejection.message)",
                ["message_id": "\(LogMessageID.pushRejected)", "reason": "\(rejection.reason.rawValue)"])
        }
    }
}
