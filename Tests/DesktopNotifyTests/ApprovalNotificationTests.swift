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

    @Test func aVerifyApprovalSendsTheUserToATerminal() {
        let shown = ApprovalNotification.content(for: approval(.verify), actions: true, markup: false)
        #expect(keys(shown) == ["deny"])
        #expect(shown.body.contains("pushctl approve apr_x"))
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

    @Test func resultsAndRefusalsAreBrief() {
        var failed = approval(.prompt, state: .failed)
        failed.error = "AM refused the answer"
        let result = ApprovalNotification.result(of: failed, markup: false)
        #expect(result.summary == "Sign-in answer failed" && result.body.contains("AM refused") && result.transient)
        #expect(ApprovalNotification.result(of: approval(.prompt, state: .approved), markup: false).summary == "Sign-in approved")
        #expect(ApprovalNotification.refusal(of: approval(.prompt), reason: "uid 1000 may read but not approve",
                                             markup: false).body.contains("may read but not approve"))
    }
}
