import Foundation
import RelayWire
import Testing

/// The relay's table encoder against Foundation's base64 made URL-safe and unpadded (RFC 4648 §5), which it replaced.
struct Base64URLTests {
    private static func foundation(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    @Test func everyLengthUpTo300IsFoundationsOutput() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...300 {
            let bytes = (0..<length).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            let encoded = Base64URL.encode(bytes)
            #expect(encoded == Self.foundation(bytes), "length \(length)")
            #expect(encoded.utf8.count == Base64URL.encodedCount(length))
            // Data and a non-contiguous sequence take the same path's output.
            #expect(Base64URL.encode(Data(bytes)) == encoded)
            #expect(Base64URL.encode(bytes.lazy.map { $0 }) == encoded)
        }
    }

    @Test func everyByteValueInEveryPositionOfAGroup() {
        // Each value first, second and third in its 3-byte group, and alone or paired at the end.
        for value in UInt8.min ... UInt8.max {
            for bytes: [UInt8] in [[value], [value, 0xff], [0x00, value], [value, 0x5a, 0xa5], [0xa5, value, 0x5a],
                                   [0x5a, 0xa5, value], [value, value, value, value]] {
                #expect(Base64URL.encode(bytes) == Self.foundation(bytes), "\(bytes)")
            }
        }
        let all = Array(UInt8.min ... UInt8.max)
        #expect(Base64URL.encode(all) == Self.foundation(all))
        #expect(Base64URL.encode(all.reversed()) == Self.foundation(all.reversed()))
    }
}
