import Foundation

/// Recursive Length Prefix encoding (the Ethereum yellow paper, appendix B), which Flow uses for the canonical
/// forms of transactions. Only encoding is needed: the agent builds transactions, it never parses RLP.
public indirect enum RLP: Sendable, Equatable {
    case bytes(Data)
    case list([RLP])

    /// An unsigned integer as RLP wants it: big-endian with no leading zero bytes, so 0 is the empty string.
    public static func uint(_ value: UInt64) -> RLP {
        var bytes = withUnsafeBytes(of: value.bigEndian) { Data($0) }
        while bytes.first == 0 { bytes.removeFirst() }
        return .bytes(bytes)
    }

    public static func text(_ value: String) -> RLP { .bytes(Data(value.utf8)) }

    public var encoded: Data {
        switch self {
        case .bytes(let bytes):
            // A single byte below 0x80 is its own encoding.
            if bytes.count == 1, let only = bytes.first, only < 0x80 { return bytes }
            return Self.header(length: bytes.count, shortOffset: 0x80) + bytes
        case .list(let items):
            let body = items.reduce(into: Data()) { $0.append($1.encoded) }
            return Self.header(length: body.count, shortOffset: 0xC0) + body
        }
    }

    /// Up to 55 bytes: one byte `offset + length`. Longer: `offset + 55 + size of length`, then the length big-endian.
    private static func header(length: Int, shortOffset: UInt8) -> Data {
        if length <= 55 { return Data([shortOffset + UInt8(length)]) }
        guard case .bytes(let size) = uint(UInt64(length)) else { preconditionFailure("uint always gives bytes") }
        return Data([shortOffset + 55 + UInt8(size.count)]) + size
    }
}
