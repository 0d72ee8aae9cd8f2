import Synchronization

/// The dialects the soak sends through pushsim.
enum Dialect: String, CaseIterable, Sendable {
    case forgerock, plusauth
}

/// What the sender learned about one push.
enum SendOutcome: String, Sendable {
    /// The relay answered 200: the push must reach the daemon exactly once.
    case accepted
    /// The relay answered with an error: it must not reach the daemon more than once (ideally not at all).
    case refused
    /// No answer from the relay (refused or broken connection): it may or may not have been stored, so at most once.
    case unconfirmed
}

struct SentPush: Sendable {
    /// Carried in the push (ForgeRock's message, PlusAuth's application) and so in the approval it makes.
    let marker: String
    let dialect: Dialect
    let outcome: SendOutcome
    /// The provider's id for the push, which its answers carry (known for accepted pushes only).
    let providerId: String?
    /// The number the user must pick, for number-matching pushes.
    let correctNumber: String?
    /// ForgeRock's biometric pushes need the approver to say the user was verified.
    let needsUserVerification: Bool
    /// Chosen for approval when sent.
    let sampled: Bool
    let failure: String?
}

/// Every push the soak sent, by marker.
final class PushLedger: Sendable {
    private let pushes = Mutex<[String: SentPush]>([:])

    func record(_ push: SentPush) { pushes.withLock { $0[push.marker] = push } }

    var all: [SentPush] { pushes.withLock { Array($0.values) } }

    func push(marker: String) -> SentPush? { pushes.withLock { $0[marker] } }

    func count(_ outcome: SendOutcome) -> Int { pushes.withLock { $0.values.count { $0.outcome == outcome } } }
}
