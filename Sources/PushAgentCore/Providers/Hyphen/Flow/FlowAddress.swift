import Foundation

/// A Flow account address: 8 bytes, written as 16 hex digits (`0x` optional on input, shorter forms left-padded,
/// as the Flow SDKs read `0x01`).
public struct FlowAddress: Hashable, Sendable, Codable, CustomStringConvertible {
    public static let byteCount = 8
    public let bytes: Data

    public init?(hex text: String) {
        var digits = Substring(text)
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
        guard !digits.isEmpty, digits.count <= Self.byteCount * 2,
              let bytes = Hex.decode(String(repeating: "0", count: Self.byteCount * 2 - digits.count) + digits)
        else { return nil }
        self.bytes = bytes
    }

    /// 16 lowercase hex digits, no prefix: the Flow REST API's form.
    public var hex: String { bytes.hex }
    public var description: String { "0x" + hex }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let address = FlowAddress(hex: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "not a Flow address (16 hex digits): \(text)"))
        }
        self = address
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }
}
