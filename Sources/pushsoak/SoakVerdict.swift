import ControlWire
import Foundation
import PushAgentCore

/// One answer pushsim's provider endpoints received, whichever dialect.
struct ProviderAnswer: Sendable {
    let providerId: String
    /// The provider took it (a verified approval it did not refuse).
    let accepted: Bool
}

/// The soak's accounting: every accepted push once in the daemon, every approved approval's answer once at the
/// provider (or failed with a reason).
struct SoakVerdict {
    /// Accepted pushes with no approval.
    var lost: [String] = []
    /// Pushes (whatever their send outcome) with more than one approval, and how many.
    var duplicated: [String: Int] = [:]
    /// Pushes the sender could not confirm, or that the relay refused, which reached the daemon anyway (once).
    var deliveredUnconfirmed = 0
    var deliveredRefused = 0
    /// Approvals whose marker the soak never sent.
    var strangers = 0

    /// Approved approvals whose answer the provider took exactly once.
    var answersDelivered = 0
    /// Approvals that ended `failed`, by their error.
    var answersFailed: [String: Int] = [:]
    /// Approved (or still approving) with no answer the provider took.
    var answersLost: [String] = []
    /// More than one answer the provider took for one push.
    var answersDuplicated: [String] = []
    /// Answers the provider took for pushes the soak never approved.
    var answersUnasked: [String] = []
    /// Pushes whose answer reached the provider more than once (the repeat refused): resends after a kill.
    var answersResent = 0
    /// Sampled accepted pushes whose approval is still pending: approve calls that never got through.
    var neverAnswered: [String] = []

    var failed: Bool {
        !lost.isEmpty || !duplicated.isEmpty || !answersLost.isEmpty || !answersDuplicated.isEmpty || !answersUnasked.isEmpty
            || answersFailed.keys.contains("")
    }

    init(pushes: [SentPush], approvals: [Approval], answers: [ProviderAnswer]) {
        let approvalsByMarker = Dictionary(grouping: approvals, by: \.soakMarker)
        let answersById = Dictionary(grouping: answers, by: \.providerId)
        var known = Set<String>()
        for push in pushes {
            known.insert(push.marker)
            let copies = approvalsByMarker[push.marker] ?? []
            if copies.count > 1 { duplicated[push.marker] = copies.count }
            switch (push.outcome, copies.isEmpty) {
            case (.accepted, true): lost.append(push.marker)
            case (.unconfirmed, false): deliveredUnconfirmed += 1
            case (.refused, false): deliveredRefused += 1
            default: break
            }
            guard let approval = copies.first, let providerId = push.providerId else { continue }
            let received = answersById[providerId] ?? []
            let taken = received.count { $0.accepted }
            if received.count > 1 { answersResent += 1 }
            if taken > 1 { answersDuplicated.append(push.marker) }
            switch approval.state {
            case .approved:
                if taken == 0 { answersLost.append(push.marker) } else { answersDelivered += 1 }
            case .approving:
                answersLost.append(push.marker)
            case .failed:
                answersFailed[Self.reasonClass(approval.error ?? ""), default: 0] += 1
            case .pending:
                if push.sampled, push.outcome == .accepted { neverAnswered.append(push.marker) }
                if taken > 0 { answersUnasked.append(push.marker) }
            case .denying, .denied, .expired:
                if taken > 0 { answersUnasked.append(push.marker) }
            }
        }
        strangers = approvals.count { !known.contains($0.soakMarker) }
    }

    /// Errors grouped by their wording without the addresses, ids and measurements that make each one unique
    /// (status and curl codes stay).
    static func reasonClass(_ error: String) -> String {
        let general = error.replacing(/https?:\/\/[^\s"]+/, with: "URL")
            .replacing(/[0-9a-f]{8,}|apr_[A-Za-z0-9_-]+|\d+\.\d+|\d{4,}|\d+ ms/, with: "…")
        return String(general.prefix(240))
    }
}
