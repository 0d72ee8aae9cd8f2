import ArgumentParser
import Foundation
import PushSim

struct GuardianCommand: AsyncParsableCommand, ServedRole {
    static let configuration = CommandConfiguration(
        commandName: "guardian",
        abstract: "Play Auth0 Guardian (otpauth://totp enrollment tickets, unsigned FCM pushes, RS256 answers).",
        subcommands: [RoleServe<Self>.self, EnrollURI.self, Push.self, Status.self])

    static let serveAbstract = "Serve Guardian's device API (under /api and /appliance-mfa/api) and the admin API; send "
        + "pushes through the relay."

    struct EnrollURI: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "enroll-uri", abstract: "Print a fresh enrollment URI (what Guardian's QR code holds).")

        @OptionGroup var sim: SimOption
        @Option(help: "The account name in the URI.") var account: String?
        @Option(help: "The tenant name (issuer).") var issuer: String?
        @Flag(name: .customLong("no-totp"), help: "No TOTP secret, in the URI or the enrollment reply.") var noTOTP = false
        @Option(name: .customLong("base-url"), help: ArgumentHelp("base_url instead of the sim's URL.", valueName: "url"))
        var baseURL: String?

        func validate() throws {
            if let baseURL { try validateHTTPURL(baseURL, flag: "--base-url") }
        }

        func run() async throws {
            let reply = try await sim.client.guardianEnrollURI(.init(account: account, issuer: issuer, totp: !noTOTP,
                                                                     baseURL: baseURL))
            print(reply.uri)
        }
    }

    struct Push: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send a sign-in push to an enrolled device; prints its transaction id.")

        @OptionGroup var sim: SimOption
        @Option(help: "The enrollment id, dev_... (default: the most recently enrolled).") var device: String?
        @Option(name: .customLong("again"), help: ArgumentHelp("Resend this transaction's push (a replay).", valueName: "tx_id"))
        var transactionId: String?
        @Flag(name: .customLong("unknown-device"), help: "Name an enrollment id no device has.") var unknownDevice = false
        @Option(help: ArgumentHelp("How long the transaction can be resolved.", valueName: "seconds")) var ttl: Int?
        @Option(help: ArgumentHelp("How long ago the sign-in started.", valueName: "seconds")) var age: Int?
        @Option(help: "The server host the push names (sh).") var hostname: String?
        @Option(help: "The sign-in's browser.") var browser: String?
        @Option(help: "The sign-in's operating system.") var os: String?
        @Option(help: "The sign-in's place.") var location: String?

        func validate() throws {
            try validatePositiveSeconds(ttl, flag: "--ttl")
            if let age, age < 0 { throw ValidationError("--age: must not be negative, got \(age)") }
        }

        func run() async throws {
            let push = try await sim.client.guardianPush(.init(
                device: device, transactionId: transactionId, unknownDevice: unknownDevice, ttl: ttl, age: age,
                hostname: hostname, browser: browser, os: os, location: location))
            print("transaction id: \(push.transactionId)")
            print("device: \(push.device)")
            print("expires at: \(push.expiresAt.formatted(.iso8601))")
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a transaction's state (accepted, rejected, pending), or without one the enrolled devices.")

        @OptionGroup var sim: SimOption
        @Argument(help: "A transaction id (tx_...).") var transaction: String?
        @Option(help: ArgumentHelp("Wait up to this long for the transaction to be resolved.", valueName: "seconds"))
        var wait = 0

        func validate() throws {
            guard (0...60).contains(wait) else { throw ValidationError("--wait: must be 0 to 60 seconds, got \(wait)") }
        }

        func run() async throws {
            guard let transaction else {
                let devices = try await sim.client.guardianDevices()
                if devices.isEmpty { return print("no devices") }
                for device in devices {
                    print("\(device.id) \(device.account) \(device.name) token \(device.pushToken.prefix(10))…"
                        + (device.deleted ? " (unenrolled)" : ""))
                }
                return
            }
            let status = try await sim.client.guardianTransaction(transaction, wait: wait)
            let reason = status.reason.map { " (\($0))" } ?? ""
            print("\(status.id) \(status.state.rawValue)\(reason)\(status.verified ? ", JWT verified" : "")")
            for resolution in status.resolutions {
                let outcome = resolution.accepted.map { $0 ? "accept" : "reject" } ?? "unreadable"
                print("  #\(resolution.seq) \(outcome) HTTP \(resolution.status)\(resolution.error.map { ": \($0)" } ?? "")")
            }
        }
    }
}
