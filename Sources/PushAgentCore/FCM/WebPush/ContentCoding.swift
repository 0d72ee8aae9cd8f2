import Crypto
import Foundation

/// The record layer of encrypted content coding: a key and a base nonce from HKDF, records sealed with AES-128-GCM
/// under the base nonce XOR the record's sequence number, and each dialect's padding. RFC 8188 (`aes128gcm`) and the
/// draft it replaced (`aesgcm`, draft-ietf-httpbis-encryption-encoding-03), which FCM still uses for data messages.
public enum ContentCoding: String, Sendable, CaseIterable {
    case aes128gcm
    case aesgcm

    static let tagLength = 16
    static let saltLength = 16
    /// What a sender's record size may be at most; larger would let a header make us allocate gigabytes per record.
    static let maxRecordSize = 1 << 20

    /// Bytes of padding framing in each record: RFC 8188's one delimiter, the draft's two-byte pad length.
    var paddingOverhead: Int { self == .aes128gcm ? 1 : 2 }

    /// The content-encryption key and the base nonce for `secret` (already mixed with the auth secret when there is
    /// one) and the message's salt. `context` is the draft's key-agreement context; RFC 8188 has none.
    static func keyAndNonce(secret: SymmetricKey, salt: Data, coding: ContentCoding, context: Data = Data())
        -> (key: SymmetricKey, nonce: Data) {
        let label = Data("Content-Encoding: ".utf8)
        let keyInfo = label + Data("\(coding.rawValue)\0".utf8) + context
        let nonceInfo = label + Data("nonce\0".utf8) + context
        let key = HKDF<SHA256>.deriveKey(inputKeyMaterial: secret, salt: salt, info: keyInfo, outputByteCount: 16)
        let nonce = HKDF<SHA256>.deriveKey(inputKeyMaterial: secret, salt: salt, info: nonceInfo, outputByteCount: 12)
        return (key, nonce.withUnsafeBytes { Data($0) })
    }

    /// The nonce of record `sequence`: the base nonce with the sequence number XORed into its last eight bytes.
    static func recordNonce(_ base: Data, sequence: UInt64) -> Data {
        var nonce = base
        for index in 0..<8 {
            nonce[nonce.startIndex + 4 + index] ^= UInt8(truncatingIfNeeded: sequence >> (8 * (7 - index)))
        }
        return nonce
    }

    /// Opens every record of `body` and strips its padding. `recordSize` counts what RFC 8188 counts: a whole
    /// sealed record for `aes128gcm`, the plaintext of one for `aesgcm`.
    func openRecords(_ body: Data, key: SymmetricKey, nonce: Data, recordSize: Int) throws(WebPushError) -> Data {
        guard recordSize > paddingOverhead + (self == .aes128gcm ? Self.tagLength : 0),
              recordSize <= Self.maxRecordSize else {
            throw .malformed("record size \(recordSize) is out of range")
        }
        let sealedSize = self == .aes128gcm ? recordSize : recordSize + Self.tagLength
        guard !body.isEmpty else { throw .malformed("no records") }
        // The draft ends a message with a short record; a whole last one means records were cut off.
        if self == .aesgcm, body.count % sealedSize == 0 { throw .malformed("the message is truncated") }
        var plaintext = Data()
        var offset = body.startIndex
        var sequence: UInt64 = 0
        while offset < body.endIndex {
            let end = min(offset + sealedSize, body.endIndex)
            let record = body[offset..<end]
            guard record.count > Self.tagLength else { throw .malformed("record \(sequence) is shorter than its tag") }
            let opened: Data
            do {
                let box = try AES.GCM.SealedBox(nonce: AES.GCM.Nonce(data: Self.recordNonce(nonce, sequence: sequence)),
                                                ciphertext: record.dropLast(Self.tagLength),
                                                tag: record.suffix(Self.tagLength))
                opened = try AES.GCM.open(box, using: key)
            } catch {
                throw .undecryptable("record \(sequence) does not decrypt (wrong keys, or altered)")
            }
            plaintext += try unpad(opened, isLast: end == body.endIndex, sequence: sequence)
            offset = end
            sequence += 1
        }
        return plaintext
    }

    private func unpad(_ record: Data, isLast: Bool, sequence: UInt64) throws(WebPushError) -> Data {
        switch self {
        case .aes128gcm:
            guard let delimiter = record.lastIndex(where: { $0 != 0 }) else {
                throw .malformed("record \(sequence) has no padding delimiter")
            }
            guard record[delimiter] == (isLast ? 2 : 1) else {
                throw .malformed("record \(sequence) ends with delimiter \(record[delimiter]), not \(isLast ? 2 : 1)")
            }
            return record[record.startIndex..<delimiter]
        case .aesgcm:
            guard record.count >= 2 else { throw .malformed("record \(sequence) is shorter than its padding length") }
            let padding = Int(record[record.startIndex]) << 8 | Int(record[record.startIndex + 1])
            let data = record.startIndex + 2 + padding
            guard data <= record.endIndex, record[(record.startIndex + 2)..<data].allSatisfy({ $0 == 0 }) else {
                throw .malformed("record \(sequence) has bad padding")
            }
            return record[data...]
        }
    }

    /// Seals `plaintext` in records of `recordSize` (counted as `openRecords` counts it), without extra padding.
    func sealRecords(_ plaintext: Data, key: SymmetricKey, nonce: Data, recordSize: Int) throws -> Data {
        let sealedOverhead = self == .aes128gcm ? Self.tagLength : 0
        let chunk = recordSize - sealedOverhead - paddingOverhead
        precondition(chunk > 0, "record size \(recordSize) leaves no room for data")
        var pieces = stride(from: 0, to: plaintext.count, by: chunk).map {
            plaintext.dropFirst($0).prefix(chunk)
        }
        // An empty message is one empty record; the draft's last record must be short, so a full one gets a follower.
        if pieces.isEmpty || (self == .aesgcm && pieces.last!.count == chunk) { pieces.append(Data()) }
        var body = Data()
        for (sequence, piece) in pieces.enumerated() {
            let isLast = sequence == pieces.count - 1
            let padded = self == .aes128gcm ? Data(piece) + [isLast ? 2 : 1] : Data([0, 0]) + piece
            let box = try AES.GCM.seal(padded, using: key,
                                       nonce: AES.GCM.Nonce(data: Self.recordNonce(nonce, sequence: UInt64(sequence))))
            body += box.ciphertext + box.tag
        }
        return body
    }
}

/// Why an encrypted push could not be read: its framing (`malformed`) or its keys (`undecryptable`).
public enum WebPushError: Error, Equatable, CustomStringConvertible {
    case malformed(String)
    case undecryptable(String)

    public var description: String {
        switch self {
        case .malformed(let why): "malformed encrypted push: \(why)"
        case .undecryptable(let why): "encrypted push cannot be read: \(why)"
        }
    }
}
