import ClusterHarness
import Foundation
import PushSim
import Synchronization

/// Sends pushes through pushsim (which signs them as the IdP and sends them to the relay) at a steady rate, and
/// records what the relay's answer, as pushsim reports it, says about each.
struct PushSender: Sendable {
    let sim: SimAdminClient
    let ledger: PushLedger
    let random: SoakRandom
    let total: Int
    let rate: Double
    let sampleRate: Double
    /// Long enough that no push expires during the run: an expired push is a rejection, not the loss we look for.
    static let ttlSeconds = 3600
    private static let workers = 4

    /// Sends until `total` pushes are out or `deadline` passes; returns how many were sent.
    func run(until deadline: ContinuousClock.Instant) async -> Int {
        let tickets = Tickets()
        let start = ContinuousClock.now
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<Self.workers {
                group.addTask {
                    while true {
                        let index = tickets.take()
                        guard index < total else { return }
                        let due = start + .milliseconds(Int(Double(index) * 1000 / rate))
                        guard due < deadline else { return }
                        try? await Task.sleep(until: due)
                        ledger.record(await send(index))
                    }
                }
            }
        }
        return ledger.all.count
    }

    private func send(_ index: Int) async -> SentPush {
        let marker = "soak-\(index)"
        let dialect = Dialect.allCases[index % Dialect.allCases.count]
        let sampled = random.chance(sampleRate)
        // Every kind of approval each dialect makes: a prompt, a number to pick, (ForgeRock) user verification.
        let variant = index / Dialect.allCases.count
        do {
            switch dialect {
            case .forgerock:
                let type = ["default", "challenge", "biometric"][variant % 3]
                let push = try await sim.push(.init(type: type, ttl: Self.ttlSeconds, message: marker))
                return SentPush(marker: marker, dialect: dialect, outcome: .accepted, providerId: push.messageId,
                                correctNumber: push.correctNumber, needsUserVerification: type == "biometric",
                                sampled: sampled, failure: nil)
            case .plusauth:
                let type = ["prompt", "code"][variant % 2]
                let push = try await sim.plusAuthPush(.init(type: type, ttl: Self.ttlSeconds, application: marker))
                return SentPush(marker: marker, dialect: dialect, outcome: .accepted, providerId: push.pushId,
                                correctNumber: push.correctValue, needsUserVerification: false, sampled: sampled,
                                failure: nil)
            }
        } catch {
            let text = "\(error)"
            return SentPush(marker: marker, dialect: dialect, outcome: Self.classify(failure: text), providerId: nil,
                            correctNumber: nil, needsUserVerification: false, sampled: false, failure: text)
        }
    }

    /// Only an answer from the relay is a refusal. Even "connection refused" is unconfirmed: libcurl retries a
    /// request whose reused connection died before any reply, so that error can follow an attempt the relay stored
    /// (seen in a soak: the relay killed between storing a push and answering).
    static func classify(failure text: String) -> SendOutcome {
        text.contains("the relay refused the push") ? .refused : .unconfirmed
    }
}

/// The next push index for whichever worker is free.
private final class Tickets: Sendable {
    private let next = Atomic<Int>(0)
    func take() -> Int { next.add(1, ordering: .relaxed).oldValue }
}
