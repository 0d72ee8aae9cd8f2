import Testing
@testable import PushAgentCore

@Suite struct IdentifierTests {
    /// Ids are drawn five bits a letter from two 64-bit draws: every one is well formed, none repeats, every position
    /// takes every letter, and every two neighbouring positions every pair of letters, across the two draws too (a
    /// bit shared by two letters would leave half the pairs out).
    @Test func idsAreWellFormedDistinctAndTheirLettersIndependent() {
        let ids = (0..<20_000).map { _ in Identifier.make(prefix: "apr") }
        #expect(ids.allSatisfy { Identifier.isWellFormed($0, prefix: "apr") })
        #expect(Set(ids).count == ids.count)
        let suffixes = ids.map { Array($0.dropFirst(4)) }
        let letters = Identifier.alphabet.count
        for position in 0..<Identifier.randomLength {
            #expect(Set(suffixes.map { $0[position] }).count == letters, "position \(position)")
        }
        for position in 1..<Identifier.randomLength {
            let pairs = Set(suffixes.map { String([$0[position - 1], $0[position]]) })
            #expect(pairs.count == letters * letters, "positions \(position - 1) and \(position)")
        }
    }
}
