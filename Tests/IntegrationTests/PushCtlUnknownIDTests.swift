import ClusterHarness
import Foundation
import Testing

/// Issue 43: `pushctl approve` with an id the daemon does not know said only "no approval matches"; every command
/// that takes an id now says which command lists the valid ones.
@Suite(.timeLimit(.minutes(2)))
struct PushCtlUnknownIDTests {
    static let unknown = "zzz-unknown"

    @Test func anUnknownIdNamesTheCommandThatListsTheValidOnes() async throws {
        let commands: [(arguments: [String], lister: String)] = [
            (["approve", Self.unknown], "pushctl list"),
            (["deny", Self.unknown], "pushctl list"),
            (["show", Self.unknown], "pushctl list"),
            (["deny", "--all", "--yes", "--account", Self.unknown], "pushctl accounts"),
            (["remove", Self.unknown], "pushctl accounts"),
            (["code", Self.unknown], "pushctl accounts"),
            (["mute", Self.unknown], "pushctl accounts"),
            (["unmute", Self.unknown], "pushctl accounts"),
            (["hyphen", "signin", "--account", Self.unknown, "--credential", "token"], "pushctl accounts"),
            (["wait", Self.unknown], "pushctl requests"),
        ]
        try await Cluster.run { cluster in
            try await cluster.startDaemon(waitForRelay: false)
            for (arguments, lister) in commands {
                let result = try await cluster.pushctl(arguments)
                #expect(result.status == 4, "\(arguments): not found: \(result.stderr)")
                #expect(result.stderr.contains(Self.unknown) && result.stderr.contains("`\(lister)`"),
                        "\(arguments): names the id and how to see the valid ones: \(result.stderr)")
            }
        }
    }
}
