import Testing
@testable import PushAgentCore

@Suite struct IdentifierTests {
    /// Ids are drawn five bits a letter from two 64-bit draws: every one is well formed, none repeats, and every
    /// position takes every letter (a bit taken twice, or never, would leave letters out).
    @Test func idsAreWellFormedDistinctAndUseTheWholeAlphabetInEveryPosition() {
        let ids = (0..<20_000).map { _ in Identifier.make(prefix: "apr") }
        #expect(ids.allSatisfy { Identifier.isWellFormed($0, prefix: "apr") })
        #expect(Set(ids).count == ids.count)
        let suffixes = ids.map { Array($0.dropFirst(4)) }
        for position in 0..<Identifier.randomLength {
            #expect(Set(suffixes.map { $0[position] }).count == Identifier.alphabet.count, "position \(position)")
        }
    }
}
