import ArgumentParser
import ControlWire
import Foundation
import PushAgentCore

struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List pending approvals (all of them with --all).")
    @OptionGroup var global: GlobalOptions
    @Flag(help: "Include resolved approvals.") var all = false

    func run() async throws {
        try await global.run { client in
            let approvals = try await client.approvals(state: all ? nil : .pending)
            if global.json { return try Output.json(ApprovalsResponse(approvals: approvals)) }
            if approvals.isEmpty { return Output.say(all ? "no approvals" : "no pending approvals") }
            Output.table(["ID", "STATE", "PROVIDER", "KIND", "EXPIRES", "MESSAGE"], approvals.map {
                [$0.id, $0.state.rawValue, $0.provider.rawValue,
                 $0.kind == .number ? "number (\($0.numbers?.joined(separator: ",") ?? ""))" : $0.kind.rawValue,
                 Output.relative($0.expiresAt), $0.message]
            })
        }
    }
}

struct Show: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show one approval in full.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Approval id or unique prefix.") var id: String

    func run() async throws {
        try await global.show(ids: .approval, { try await $0.approval(id) }) { approval in
            Output.say(Output.describe(approval))
        }
    }
}

struct Approve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Approve a sign-in.",
        discussion: """
            An approval of kind verify needs proof that it is you. Where pushagentd has polkit, polkit asks for your \
            password in this terminal (pushctl runs pkttyagent for it). Elsewhere pushctl asks for your login \
            password, which pushagentd checks through PAM. Automation gives the password with --password-fd, or \
            runs as root with --user-verified.
            """)
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Approval id or unique prefix.") var id: String
    @Option(help: "The number shown at sign-in (number approvals).") var number: String?
    @Flag(help: "State that the user was verified (approvals of kind verify; root only, for automation).")
    var userVerified = false
    @Option(name: .customLong("password-fd"), help: ArgumentHelp(
        "Read your login password from this file descriptor, one line (approvals of kind verify, for automation).",
        valueName: "N"))
    var passwordFD: Int32?

    func run() async throws {
        try await global.run(ids: .approval) { client in
            let interactive = isatty(STDIN_FILENO) != 0
            var number = self.number
            var verified = userVerified
            var password: String?
            var polkitAgent: PolkitTTYAgent?
            defer { polkitAgent?.stop() }
            if (number == nil && interactive) || (!verified && (interactive || passwordFD != nil)) {
                let approval = try await client.approval(id)
                if approval.kind == .number, number == nil, interactive {
                    number = Prompt.ask("Number shown at sign-in (\(approval.numbers?.joined(separator: ", ") ?? "")): ")
                }
                if approval.kind == .verify, !verified {
                    if let passwordFD {
                        password = try PasswordInput.line(from: passwordFD)
                    } else if getuid() == 0 {
                        verified = Prompt.ask("This sign-in requires you to confirm it is you. Type 'yes' to approve: ") == "yes"
                    } else if try await client.status().userVerificationMethod == .polkit,
                              let agent = try PolkitTTYAgent.start() {
                        polkitAgent = agent
                    } else {
                        password = try PasswordInput.ask("Password for \(PasswordInput.userName) (to verify it is you): ")
                    }
                }
            }
            // polkit's check waits while the user types: the request may take as long as the daemon lets it.
            let result = try await client.approve(id, number: number, userVerified: verified ? true : nil, password: password,
                                                  timeout: polkitAgent == nil ? nil : UserVerificationMethod.longestPolkitWait + .seconds(60))
            if global.json { return try Output.json(result) }
            try report(result, verb: "approved")
        }
    }
}

struct Deny: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Deny a sign-in, or every pending one (--all).",
        discussion: "--fraud reports it as fraud where the provider supports it, and mutes the account: its pushes are denied unseen for the daemon's fraud_mute_seconds (`pushctl unmute` ends that).")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Approval id or unique prefix.") var id: String?
    @Flag(help: "Report it as fraud, and mute the account.") var fraud = false
    @Flag(help: "Deny every pending approval (asks first on a terminal).") var all = false
    @Option(help: "With --all: only this account's (id or unique prefix).") var account: String?
    @Flag(name: .shortAndLong, help: "With --all: do not ask.") var yes = false

    func validate() throws {
        if all, id != nil { throw ValidationError("give an approval id or --all, not both") }
        if !all, id == nil { throw ValidationError("give the approval id to deny, or --all") }
        if account != nil, !all { throw ValidationError("--account goes with --all") }
    }

    func run() async throws {
        try await global.run(ids: all ? .account : .approval) { client in
            guard all else {
                let result = try await client.deny(id ?? "", reason: fraud ? .fraud : nil)
                if global.json { return try Output.json(result) }
                return try report(result, verb: "denied")
            }
            if !yes, isatty(STDIN_FILENO) != 0 {
                let pending = try await client.approvals(state: .pending).filter { account == nil || $0.accountId.hasPrefix(account ?? "") }
                if pending.isEmpty { return Output.say("nothing pending to deny") }
                guard Prompt.ask("Deny \(pending.count) pending approval\(pending.count == 1 ? "" : "s")\(account.map { " of account \($0)" } ?? "")? Type 'yes': ") == "yes" else {
                    Output.error("nothing denied")
                    throw ExitCode.failure
                }
            }
            let denied = try await client.denyAll(account: account, reason: fraud ? .fraud : nil)
            if global.json { return try Output.json(ApprovalsResponse(approvals: denied)) }
            if denied.isEmpty { return Output.say("nothing pending to deny") }
            var failed = false
            for approval in denied {
                do { try report(approval, verb: "denied") } catch { failed = true }
            }
            if failed { throw ExitCode.failure }
        }
    }
}

/// Prints the outcome of approve/deny; a failed answer is a failure of the command.
private func report(_ approval: Approval, verb: String) throws {
    switch approval.state {
    case .approved, .denied:
        Output.say("\(approval.id) \(approval.state.rawValue)")
        if let code = approval.resolution?.displayCode {
            Output.say("\(approval.resolution?.displayMessage ?? "Enter this code at the sign-in"): \(code)")
        }
    case .approving, .denying:
        Output.say("\(approval.id) \(verb) here; still sending the answer to the provider (see `pushctl show \(approval.id)`)")
    default:
        Output.error("\(approval.id) \(approval.state.rawValue): \(approval.error ?? "no reason given")")
        throw ExitCode.failure
    }
}

enum Prompt {
    static func ask(_ question: String) -> String? {
        // Questions quote the push (the numbers to choose from).
        FileHandle.standardError.write(Data(DisplayText.sanitized(question).utf8))
        return readLine()?.trimmingCharacters(in: .whitespaces)
    }
}

struct History: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Resolved approvals and rejected pushes, newest first.")
    @OptionGroup var global: GlobalOptions
    @Option(help: "How many entries.") var limit = 50

    func run() async throws {
        try await global.run { client in
            let entries = try await client.history(limit: limit)
            if global.json { return try Output.json(HistoryResponse(entries: entries)) }
            if entries.isEmpty { return Output.say("no history yet") }
            Output.table(["WHEN", "WHAT", "DETAIL"], entries.map { entry in
                if let approval = entry.approval {
                    return [Output.relative(entry.at), "approval \(approval.state.rawValue)",
                            "\(approval.id) \(approval.provider.rawValue): \(approval.message)\(approval.error.map { " (\($0))" } ?? "")"]
                }
                let push = entry.rejectedPush
                return [Output.relative(entry.at), "push rejected",
                        "\(push?.reason.rawValue ?? "?"): \(push?.message ?? "")"]
            })
        }
    }
}
