import ClusterHarness
import Foundation
import Testing

/// Issue 43: man/pushctl.1 showed "(pushauth://, mfauth://, )": generate-manual drops every character outside ASCII
/// from the help it writes. Each one a program's help holds is in its man page, as the roff escape man renders.
/// (Expectations compare sets and flags, never the page: a failure would print the whole page.)
struct ManPageTests {
    static func page(_ program: String) throws -> String {
        try String(contentsOf: Binaries.packageRoot().appendingPathComponent("man/\(program).1"), encoding: .utf8)
    }

    static func escape(_ character: Unicode.Scalar) -> String { String(format: #"\[u%04X]"#, character.value) }

    @Test(arguments: ["pushagentd", "pushctl", "pushrelay", "pushsim"])
    func theManPageKeepsEveryCharacterOfTheHelp(program: String) async throws {
        let help = try await CommandResult.run(Binaries.path(program), ["--experimental-dump-help"])
        try #require(help.status == 0, "\(program) --experimental-dump-help: \(help.stderr)")
        let page = try Self.page(program)
        let missing = Set(help.stdout.unicodeScalars.filter { !$0.isASCII && !page.contains(Self.escape($0)) })
        #expect(missing.isEmpty, "man/\(program).1 lacks \(missing.map { "\($0) (\(Self.escape($0)))" }.sorted()), which its help has")
        let raw = page.unicodeScalars.contains { !$0.isASCII }
        #expect(!raw, "man/\(program).1 writes them as escapes")
    }

    @Test func pushctlsEnrollAbstractKeepsItsEllipsis() throws {
        let kept = try Self.page("pushctl").contains(#"(pushauth://, mfauth://, \[u2026])"#)
        #expect(kept)
    }
}
