import ArgumentParser
import ControlAPI
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
        try await global.run { client in
            let approval = try await client.approval(id)
            if global.json { return try Output.json(approval) }
            Output.say(Output.describe(approval))
        }
    }
}

struct Approve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Approve a sign-in.",
        discussion: """
            An approval of kind verify needs proof that it is you: pushctl asks for your login password, which \
            pushagentd checks through PAM. Automation gives it with --password-fd, or runs as root with --user-verified.
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
        try await global.run { client in
            let interactive = isatty(STDIN_FILENO) != 0
            var number = self.number
            var verified = userVerified
            var password: String?
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
                    } else {
                        password = try PasswordInput.ask("Password for \(PasswordInput.userName) (to verify it is you): ")
                    }
                }
            }
            let result = try await client.approve(id, number: number, userVerified: verified ? true : nil, password: password)
            if global.json { return try Output.json(result) }
            try report(result, verb: "approved")
        }
    }
}

struct Deny: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Deny a sign-in.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Approval id or unique prefix.") var id: String
    @Flag(help: "Report it as fraud where the provider supports it.") var fraud = false

    func run() async throws {
        try await global.run { client in
            let result = try await client.deny(id, reason: fraud ? .fraud : nil)
            if global.json { return try Output.json(result) }
            try report(result, verb: "denied")
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
