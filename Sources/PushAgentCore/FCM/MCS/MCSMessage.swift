import Foundation
import SwiftProtobuf

/// One stanza of Google's Mobile Connection Server protocol, by the tag that precedes it on the wire (Chromium's
/// google_apis/gcm/base/mcs_util.cc numbers them; version 41).
public enum MCSMessage: Sendable, Equatable {
    case heartbeatPing(McsProto_HeartbeatPing)
    case heartbeatAck(McsProto_HeartbeatAck)
    case loginRequest(McsProto_LoginRequest)
    case loginResponse(McsProto_LoginResponse)
    case close(McsProto_Close)
    case iq(McsProto_IqStanza)
    case data(McsProto_DataMessageStanza)
    case streamError(McsProto_StreamErrorStanza)
    /// A stanza a push receiver has no use for (presence, HTTP, account binding, talk metadata): read and skipped.
    case unhandled(tag: UInt8)

    /// The IqStanza extension ids of the two acknowledgements (Chromium's kSelectiveAck, kStreamAck).
    public static let selectiveAckExtension: Int32 = 12
    public static let streamAckExtension: Int32 = 13

    public var tag: UInt8 {
        switch self {
        case .heartbeatPing: 0
        case .heartbeatAck: 1
        case .loginRequest: 2
        case .loginResponse: 3
        case .close: 4
        case .iq: 7
        case .data: 8
        case .streamError: 10
        case .unhandled(let tag): tag
        }
    }

    /// The tags Chromium defines; anything above is not MCS.
    static let highestTag: UInt8 = 15

    public init(tag: UInt8, body: Data) throws(MCSError) {
        do {
            switch tag {
            case 0: self = .heartbeatPing(try McsProto_HeartbeatPing(serializedBytes: body))
            case 1: self = .heartbeatAck(try McsProto_HeartbeatAck(serializedBytes: body))
            case 2: self = .loginRequest(try McsProto_LoginRequest(serializedBytes: body))
            case 3: self = .loginResponse(try McsProto_LoginResponse(serializedBytes: body))
            case 4: self = .close(try McsProto_Close(serializedBytes: body))
            case 7: self = .iq(try McsProto_IqStanza(serializedBytes: body))
            case 8: self = .data(try McsProto_DataMessageStanza(serializedBytes: body))
            case 10: self = .streamError(try McsProto_StreamErrorStanza(serializedBytes: body))
            case ...Self.highestTag: self = .unhandled(tag: tag)
            default: throw MCSError.unknownTag(tag)
            }
        } catch let error as MCSError {
            throw error
        } catch {
            throw .undecodable(tag: tag, "\(error)")
        }
    }

    /// The stanza's protobuf bytes (no tag, no length).
    public func body() throws -> Data {
        switch self {
        case .heartbeatPing(let message): try message.serializedBytes()
        case .heartbeatAck(let message): try message.serializedBytes()
        case .loginRequest(let message): try message.serializedBytes()
        case .loginResponse(let message): try message.serializedBytes()
        case .close(let message): try message.serializedBytes()
        case .iq(let message): try message.serializedBytes()
        case .data(let message): try message.serializedBytes()
        case .streamError(let message): try message.serializedBytes()
        case .unhandled: Data()
        }
    }

    /// A selective acknowledgement of these persistent ids: the server stops resending them.
    public static func selectiveAck(_ persistentIDs: [String]) throws -> MCSMessage {
        var ack = McsProto_SelectiveAck()
        ack.id = persistentIDs
        var iq = McsProto_IqStanza()
        iq.type = .set
        iq.id = ""
        iq.extension.id = selectiveAckExtension
        iq.extension.data = try ack.serializedBytes()
        return .iq(iq)
    }

    /// The persistent ids a selective acknowledgement carries, or nil when the stanza is not one.
    public var selectivelyAcknowledged: [String]? {
        guard case .iq(let iq) = self, iq.hasExtension, iq.extension.id == Self.selectiveAckExtension,
              let ack = try? McsProto_SelectiveAck(serializedBytes: iq.extension.data) else { return nil }
        return ack.id
    }

    /// A data stanza's app data value for `key` (FCM puts the encryption parameters there).
    public static func appData(_ stanza: McsProto_DataMessageStanza, _ key: String) -> String? {
        stanza.appData.first { $0.key == key }?.value
    }
}

/// Why an MCS stream cannot be read further. Every case ends the connection: the stream has no resynchronisation.
public enum MCSError: Error, Equatable, CustomStringConvertible {
    case unsupportedVersion(UInt8)
    case unknownTag(UInt8)
    case frameTooLarge(size: UInt64, limit: Int)
    case badLength
    case undecodable(tag: UInt8, String)

    public var description: String {
        switch self {
        case .unsupportedVersion(let version): "the peer speaks MCS version \(version), not 41"
        case .unknownTag(let tag): "stanza tag \(tag) is not MCS"
        case .frameTooLarge(let size, let limit): "a stanza of \(size) bytes is over the \(limit)-byte limit"
        case .badLength: "a stanza length is not a valid varint"
        case .undecodable(let tag, let why): "stanza tag \(tag) does not decode: \(why)"
        }
    }
}
