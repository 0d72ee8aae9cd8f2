import Foundation
@testable import PushAgentDaemon
import PushAgentStore
import Testing

/// What the polkit path of verify approvals decides without a bus: the subject it names, how it reads polkit's
/// answer, and what it tells the user. The real polkitd is exercised by `make test-systemd`.
@Suite struct PolkitTests {
    func startTime(_ stat: String) -> UInt64? { PolkitSubject.startTime(stat: Data(stat.utf8)) }
    let fields3to22 = (3...21).map(String.init).joined(separator: " ") + " 987654"

    @Test func theStartTimeIsField22CountedAfterTheCommandName() {
        #expect(startTime("4242 (pushctl) \(fields3to22) 23 24") == 987_654)
        // A name with spaces and a closing parenthesis must not shift the fields.
        #expect(startTime("4242 (a) b (c)) \(fields3to22) 23") == 987_654)
        #expect(startTime("4242 (pushctl) 3 4 5") == nil, "too few fields")
        #expect(startTime("garbage") == nil)
    }

    /// The name is the process's own choice. Read by `Character`, one ending in U+0600 (which joins what follows it)
    /// hid the `)` after it, and the fields were counted from one inside the name: field 21 was read, always 0 (to
    /// polkit, "look it up yourself"). A name the kernel cut inside a UTF-8 sequence was no text at all.
    @Test func theProcessNameCannotShiftTheFields() {
        #expect(startTime("4242 ()\u{600}) \(fields3to22) 23") == 987_654)
        #expect(startTime("4242 ()a \u{600}) \(fields3to22) 23") == 987_654)
        var cut = Data("4242 (pushct".utf8) + [0xC3]
        cut += Data(") \(fields3to22) 23".utf8)
        #expect(PolkitSubject.startTime(stat: cut) == 987_654)
    }

    @Test func theSubjectOfALivePeerIsItsProcess() throws {
        let subject = try PolkitSubject(peer: Peer(uid: 1000, pid: getpid(), command: nil))
        #expect(subject.pid == UInt32(getpid()) && subject.uid == 1000 && subject.startTime > 0)
        #expect(throws: ServiceError.self) { try PolkitSubject(peer: Peer(uid: 1000, pid: -1, command: nil)) }
    }

    @Test func polkitsAnswersAreReadAsWhatHappened() {
        let yes = PolkitReply(isAuthorized: true, isChallenge: false, details: [:])
        let wouldAsk = PolkitReply(isAuthorized: false, isChallenge: true, details: ["polkit.result": "auth_self"])
        let no = PolkitReply(isAuthorized: false, isChallenge: false, details: ["approval_id": "apr_x"])
        #expect(PolkitDecision(probe: yes) == .authorized, "allowed without asking (a rule's YES)")
        #expect(PolkitDecision(probe: no) == .denied, "no without asking: a rule said no")
        #expect(PolkitDecision(probe: wouldAsk) == nil, "the user must be asked")
        #expect(PolkitDecision(answer: yes) == .authorized)
        #expect(PolkitDecision(answer: wouldAsk) == .noAgent, "still a challenge: no agent asked")
        #expect(PolkitDecision(answer: no) == .notAuthenticated(dismissed: false), "asked, and the password was wrong")
        #expect(PolkitDecision(answer: PolkitReply(isAuthorized: false, isChallenge: false, details: ["polkit.dismissed": "true"]))
            == .notAuthenticated(dismissed: true))
    }

    @Test func everyRefusalSaysWhatToDoNext() throws {
        #expect(PolkitDecision.authorized.refusal(approvalId: "apr_x", uid: 1000, user: "alice") == nil)
        let failed = try #require(PolkitDecision.notAuthenticated(dismissed: false).refusal(approvalId: "apr_x", uid: 1000, user: "alice"))
        #expect(failed.contains("org.pushagent.approve-verified for alice (uid 1000)") && failed.contains("password was wrong")
            && failed.contains("pushctl approve apr_x"), "\(failed)")
        let dismissed = try #require(PolkitDecision.notAuthenticated(dismissed: true).refusal(approvalId: "apr_x", uid: 1000, user: "alice"))
        #expect(dismissed.contains("dialog was dismissed"), "\(dismissed)")
        let noAgent = try #require(PolkitDecision.noAgent.refusal(approvalId: "apr_x", uid: 1000, user: "alice"))
        #expect(noAgent.contains("no polkit authentication agent") && noAgent.contains("--password-fd"), "\(noAgent)")
        let denied = try #require(PolkitDecision.denied.refusal(approvalId: "apr_x", uid: 1000, user: "alice"))
        #expect(denied.contains("an administrator's polkit rule forbids it") && denied.contains("/etc/polkit-1/rules.d"), "\(denied)")
    }
}
