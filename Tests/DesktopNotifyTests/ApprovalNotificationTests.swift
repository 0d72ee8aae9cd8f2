import DesktopNotify
import Foundation
import PushAgentCore
import Testing

struct ApprovalNotificationTests {
    func approval(_ kind: ApprovalKind, provider: Provider = .forgerock, numbers: [String]? = nil,
                  state: ApprovalState = .pending) -> Approval {
        Approval(id: "apr_x", provider: provider, accountId: "acc_1", kind: kind, numbers: numbers,
                 title: "Sign in to <Wiki>?", message: "Alice & Bob\u{1B}[2J", context: ApprovalContext(
                    app: "Wiki", user: "alice", ip: "192.0.2.7", location: "Berlin", userAgent: "Firefox"),
                 state: state, requestedAt: Date(), expiresAt: Date().addingTimeInterval(120))
    }

    func keys(_ notification: DesktopNotification) -> [String] { notification.actions.map(\.key) }

    @Test func aPromptHasApproveAndDenyAndTheSignInsContext() {
        let shown = ApprovalNotification.content(for: approval(.prompt), actions: true, markup: false)
        #expect(keys(shown) == ["approve", "deny"])
        #expect(shown.urgency == .critical && shown.resident && shown.expireTimeoutMs == 0)
        #expect(shown.body.contains("App: Wiki") && shown.body.contains("IP: 192.0.2.7") && shown.body.contains("Browser: Firefox"))
        #expect(!shown.body.contains("\u{1B}"), "terminal escapes from the push are replaced")
    }

    @Test func aNumberApprovalCanOnlyBeApprovedByPickingANumber() {
        let number = approval(.number, numbers: ["17", "42", "83"])
        let shown = ApprovalNotification.content(for: number, actions: true, markup: false)
        #expect(keys(shown) == ["number:17", "number:42", "number:83", "deny"])
        #expect(shown.actions.map(\.label) == ["17", "42", "83", "Deny"])
        #expect(ApprovalNotification.decision(forAction: "number:42", of: number) == .approve(number: "42"))
        #expect(ApprovalNotification.decision(forAction: "approve", of: number) == nil, "no blind approval")
        #expect(ApprovalNotification.decision(forAction: "number:99", of: number) == nil)
    }

    @Test func fraudIsOfferedWhereTheDialectTakesAReason() {
        #expect(keys(ApprovalNotification.content(for: approval(.prompt, provider: .plusauth), actions: true, markup: false))
                == ["approve", "deny", "fraud"])
        #expect(!keys(ApprovalNotification.content(for: approval(.prompt, provider: .hyphen), actions: true, markup: false))
                .contains("fraud"))
        #expect(ApprovalNotification.decision(forAction: "fraud", of: approval(.prompt, provider: .privacyidea))
                == .deny(reason: .fraud))
        #expect(ApprovalNotification.decision(forAction: "fraud", of: approval(.prompt)) == nil)
    }

    @Test func aVerifyApprovalSendsTheUserToATerminalUnlessPolkitAsksForThePassword() {
        let shown = ApprovalNotification.content(for: approval(.verify), actions: true, markup: false)
        #expect(keys(shown) == ["deny"])
        #expect(shown.body.contains("pushctl approve apr_x"))
        #expect(ApprovalNotification.decision(forAction: "approve", of: approval(.verify)) == nil)

        let throughPolkit = ApprovalNotification.content(for: approval(.verify), actions: true, markup: false, polkit: true)
        #expect(keys(throughPolkit) == ["approve", "deny"])
        #expect(throughPolkit.body.contains("Approving asks for your password") && !throughPolkit.body.contains("terminal"))
        #expect(ApprovalNotification.decision(forAction: "approve", of: approval(.verify), polkit: true) == .approve(number: nil))
        let withoutButtons = ApprovalNotification.content(for: approval(.verify), actions: false, markup: false, polkit: true)
        #expect(withoutButtons.body.contains("pushctl approve apr_x"), "without buttons the terminal is the way")
    }

    @Test func withoutActionsTheTextSaysWhichCommandAnswers() {
        let shown = ApprovalNotification.content(for: approval(.number, numbers: ["1", "2"]), actions: false, markup: false)
        #expect(shown.actions.isEmpty)
        #expect(shown.body.contains("pushctl approve apr_x --number N") && shown.body.contains("pushctl deny apr_x"))
        #expect(shown.body.contains("1, 2"))
    }

    @Test func markupServersGetEscapedText() {
        let shown = ApprovalNotification.content(for: approval(.prompt), actions: true, markup: true)
        #expect(shown.body.hasPrefix("Alice &amp; Bob"))
        #expect(shown.summary == "Sign in to <Wiki>?", "the summary is never markup")
    }

    @Test func resultsAndRefusalsAreBrief() throws {
        var failed = approval(.prompt, state: .failed)
        failed.error = "AM refused the answer"
        let result = try #require(ApprovalNotification.result(of: failed, markup: false))
        #expect(result.summary == "Sign-in answer failed" && result.body.contains("AM refused") && result.transient)
        #expect(ApprovalNotification.result(of: approval(.prompt, state: .approved), markup: false)?.summary == "Sign-in approved")
        #expect(ApprovalNotification.refusal(of: approval(.prompt), reason: "uid 1000 may read but not approve",
                                             markup: false).body.contains("may read but not approve"))
    }

    /// dunst's stack_duplicates merged a number challenge into a prompt with the same title and message: the
    /// number challenge's notification was closed and the sign-in lost from the screen.
    @Test func lookAlikeRequestsHaveTextsOfTheirOwnThatSayWhatToDo() {
        var prompt = approval(.prompt)
        prompt.id = "apr_prompt"
        var challenge = approval(.number, numbers: ["17", "42", "83"])
        challenge.id = "apr_challenge"
        let shownPrompt = ApprovalNotification.content(for: prompt, actions: true, markup: false)
        let shownChallenge = ApprovalNotification.content(for: challenge, actions: true, markup: false)
        #expect(shownPrompt.summary == shownChallenge.summary)
        #expect(shownPrompt.body != shownChallenge.body)
        #expect(shownChallenge.body.contains("Pick the number shown at the sign-in"))
        #expect(shownPrompt.body.contains("Approve only if you started this sign-in"))
        var twin = prompt
        twin.id = "apr_twin"
        #expect(ApprovalNotification.content(for: twin, actions: true, markup: false).body != shownPrompt.body,
                "two requests of one kind and text are two notifications too")
    }

    @Test func aRequestReplacedByALookAlikeSaysNothing() {
        var superseded = approval(.prompt, state: .denied)
        superseded.resolution = Resolution(byUid: nil, automatic: .superseded)
        #expect(ApprovalNotification.result(of: superseded, markup: false) == nil,
                "not 'Sign-in denied' beside the newer pending request: the user did nothing")
    }

    @Test func aFraudReportSaysTheAccountIsMutedAndUntilWhen() throws {
        var reported = approval(.prompt, provider: .plusauth, state: .denied)
        reported.resolution = Resolution(byUid: 1000, reason: .fraud)
        let until = Date(timeIntervalSince1970: 1_800_000_000)
        let result = try #require(ApprovalNotification.result(of: reported, mutedUntil: until, markup: false))
        #expect(result.summary == "Sign-in denied and reported as fraud")
        #expect(result.body.contains("Account muted until \(until.formatted(date: .abbreviated, time: .shortened))"))
        #expect(result.body.contains("pushctl unmute acc_1"))
        let unknown = try #require(ApprovalNotification.result(of: reported, markup: false))
        #expect(unknown.body.contains("denied unseen"), "without the account's mute it still says what happened")
    }
}
