import Foundation

/// MCS framing: the version byte once at the start of each direction, then per stanza its tag, its length as a
/// protobuf varint, and its bytes.
public enum MCSFraming {
    public static let version: UInt8 = 41
    /// What Chromium still accepts from a server besides 41.
    static let olderAcceptedVersion: UInt8 = 38
    /// FCM's data messages are at most 4 KiB; a stanza this big is hostile or broken.
    public static let defaultMaxStanzaSize = 256 * 1024

    public static func frame(_ message: MCSMessage, withVersion: Bool) throws -> Data {
        let body = try message.body()
        return (withVersion ? Data([version]) : Data()) + [message.tag] + varint(UInt64(body.count)) + body
    }

    static func varint(_ value: UInt64) -> Data {
        var value = value
        var bytes = Data()
        repeat {
            bytes.append(UInt8(value & 0x7f) | (value > 0x7f ? 0x80 : 0))
            value >>= 7
        } while value > 0
        return bytes
    }
}

/// Reads stanzas out of a byte stream as it arrives. Memory stays bounded by the largest allowed stanza: a length
/// over the limit is refused as soon as it is read, before its bytes are waited for.
public struct MCSFrameDecoder: Sendable {
    public let maxStanzaSize: Int
    /// The version the peer announced, once its first byte has arrived.
    public private(set) var peerVersion: UInt8?
    private var buffer: [UInt8] = []
    private var readIndex = 0

    public init(maxStanzaSize: Int = MCSFraming.defaultMaxStanzaSize) {
        self.maxStanzaSize = maxStanzaSize
    }

    public mutating func append(_ bytes: some Sequence<UInt8>) {
        if readIndex > 0, readIndex >= buffer.count / 2 {
            buffer.removeFirst(readIndex)
            readIndex = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Bytes received and not yet part of a whole stanza.
    public var pendingByteCount: Int { buffer.count - readIndex }

    /// The next whole stanza, or nil until more bytes arrive.
    public mutating func next() throws(MCSError) -> MCSMessage? {
        var index = readIndex
        if peerVersion == nil {
            guard index < buffer.count else { return nil }
            let version = buffer[index]
            guard version >= MCSFraming.version || version == MCSFraming.olderAcceptedVersion else {
                throw .unsupportedVersion(version)
            }
            peerVersion = version
            index += 1
            readIndex = index
        }
        guard index < buffer.count else { return nil }
        let tag = buffer[index]
        guard tag <= MCSMessage.highestTag else { throw .unknownTag(tag) }
        index += 1
        var length: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard index < buffer.count else { return nil }
            let byte = buffer[index]
            index += 1
            // A 32-bit length takes five bytes at most.
            guard shift < 35 else { throw .badLength }
            length |= UInt64(byte & 0x7f) << shift
            if byte & 0x80 == 0 { break }
            shift += 7
        }
        guard length <= UInt64(maxStanzaSize) else { throw .frameTooLarge(size: length, limit: maxStanzaSize) }
        guard buffer.count - index >= Int(length) else { return nil }
        let body = Data(buffer[index..<(index + Int(length))])
        readIndex = index + Int(length)
        return try MCSMessage(tag: tag, body: body)
    }
}
