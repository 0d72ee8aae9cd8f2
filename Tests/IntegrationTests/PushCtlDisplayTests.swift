import ClusterHarness
import Foundation
import PushSim
import Testing

/// What a provider writes in an enrollment URI (issuer, account name) reaches pushctl's output through the daemon;
/// no terminal control in it may reach the terminal as it is.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct PushCtlDisplayTests {
    static let hostileAccount = "\u{1B}[2J\u{1B}]0;owned\u{07}mallory\u{202E}evil\u{9B}31m"

    static func terminalControls(in text: String) -> [UInt32] {
        text.unicodeScalars.filter { $0 != "\n" && ($0.properties.generalCategory == .control || $0.properties.isBidiControl) }
            .map(\.value)
    }

    @Test func enrollAccountsAndRemoveShowTheAccountNameWithoutTerminalControls() async throws {
        try await Cluster.run { cluster in
            try await cluster.startDaemon()
            let uri = try await SimAdminClient(baseURL: cluster.simURL).enrollURI(.init(account: Self.hostileAccount))
            let enroll = try await cluster.pushctl(["enroll", uri])
            #expect(enroll.status == 0, "enrolled: \(enroll.stderr)")
            #expect(enroll.stdout.contains("mallory"), "names the account: \(enroll.stdout)")
            let account = try #require(try await cluster.client.accounts().first)
            let outputs = [
                ("enroll", enroll),
                ("accounts", try await cluster.pushctl(["accounts"])),
                ("--json accounts", try await cluster.pushctl(["--json", "accounts"])),
                ("remove", try await cluster.pushctl(["remove", account.id])),
            ]
            for (command, result) in outputs {
                #expect(result.status == 0, "\(command): \(result.stderr)")
                #expect(Self.terminalControls(in: result.stdout).isEmpty, "\(command): \(result.stdout.debugDescription)")
            }
        }
    }
}
