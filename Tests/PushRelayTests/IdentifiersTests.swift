import Testing
@testable import PushRelay

struct IdentifiersTests {
    @Test func identifiersHaveTheirLengthAlphabetAndDoNotRepeat() {
        let messageIDs = (0..<1000).map { _ in Identifiers.messageID() }
        #expect(Set(messageIDs).count == 1000)
        #expect(messageIDs.allSatisfy { $0.count == 32 && $0.allSatisfy(\.isHexDigit) && $0 == $0.lowercased() })
        let tokens = (0..<1000).map { _ in Identifiers.pushToken() }
        #expect(Set(tokens).count == 1000)
        // 32 bytes in unpadded base64url.
        #expect(tokens.allSatisfy { $0.count == 43 && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" } })
    }

    @Test func randomBytesAreAsManyAsAskedAndUseEveryBytePosition() {
        for count in [0, 1, 7, 8, 9, 16, 33] { #expect(Identifiers.randomBytes(count).count == count) }
        // Over 1000 draws each position of 16 bytes takes many values: no position is left zero or constant.
        let draws = (0..<1000).map { _ in Identifiers.randomBytes(16) }
        for position in 0..<16 { #expect(Set(draws.map { $0[position] }).count > 200) }
    }
}
