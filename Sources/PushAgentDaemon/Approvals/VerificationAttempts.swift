import Foundation
import Synchronization

/// Wrong passwords for approvals of kind verify. PAM's own delay holds one guess at a time only: guesses in
/// parallel went through at 3.5 a second, without end. So each failure makes the next try wait longer, for the uid
/// and for the approval alike, and the approval is denied at the `failuresBeforeDenial`th.
final class VerificationAttempts: Sendable {
    static let failuresBeforeDenial = 5
    /// The wait grows no further: a user who mistyped a few times is not locked out for long.
    static let longestWait: TimeInterval = 60
    /// A uid whose last failure is this old starts over.
    static let forgetAfter: TimeInterval = 15 * 60

    private enum Key: Hashable {
        case uid(UInt32)
        case approval(String)
    }

    private struct Failures {
        var count: Int
        var retryAt: Date
    }

    private let failures = Mutex<[Key: Failures]>([:])

    /// 1, 2, 4, 8 … seconds after the first, second, third, fourth … failure in a row.
    static func wait(afterFailures count: Int) -> TimeInterval {
        min(longestWait, Double(sign: .plus, exponent: min(count, 16) - 1, significand: 1))
    }

    /// Whole seconds until `uid` may try a password for `approvalId` again; nil when it may now.
    func secondsToWait(uid: UInt32, approvalId: String, now: Date) -> Int? {
        let retryAt = failures.withLock { failures in
            [Key.uid(uid), .approval(approvalId)].compactMap { failures[$0]?.retryAt }.max()
        }
        guard let retryAt, retryAt > now else { return nil }
        return Int(retryAt.timeIntervalSince(now).rounded(.up))
    }

    /// Counts a wrong password; returns how many the approval has had and how long until the next try.
    func recordFailure(uid: UInt32, approvalId: String, now: Date) -> (count: Int, wait: TimeInterval) {
        failures.withLock { failures in
            failures = failures.filter { now.timeIntervalSince($0.value.retryAt) < Self.forgetAfter }
            var result = (count: 0, wait: 0.0)
            for key in [Key.approval(approvalId), .uid(uid)] {
                let count = (failures[key]?.count ?? 0) + 1
                let wait = Self.wait(afterFailures: count)
                failures[key] = Failures(count: count, retryAt: now.addingTimeInterval(wait))
                if case .approval = key { result.count = count }
                result.wait = max(result.wait, wait)
            }
            return result
        }
    }

    /// The right password, or the approval ended: its count, and the uid's, start over.
    func forget(uid: UInt32, approvalId: String) {
        failures.withLock { failures in
            failures[.uid(uid)] = nil
            failures[.approval(approvalId)] = nil
        }
    }
}
