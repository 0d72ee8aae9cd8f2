import Foundation
import RelayWire

/// How both stores keep a message's maps: as JSON text, written and read the same way.
extension OutgoingMessage {
    func encodedPayload() -> (data: String, notification: String?) {
        (JSONText.object(data), notification.map(JSONText.object))
    }
}

extension RelayMessage {
    /// A stored message read back; `decoder` is shared by the rows of one read.
    init(seq: Int64, id: String, data: String, notification: String?, priority: String, sentAt: Int64, expiresAt: Int64,
         decoder: JSONDecoder) throws {
        self.init(
            seq: seq, id: id, data: try decoder.decode([String: String].self, from: Data(data.utf8)),
            notification: try notification.map { try decoder.decode([String: String].self, from: Data($0.utf8)) },
            priority: MessagePriority(rawValue: priority) ?? .normal, sentAt: sentAt, expiresAt: expiresAt)
    }
}
