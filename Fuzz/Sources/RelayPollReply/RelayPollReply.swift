import Foundation
import RelayWire

/// The fuzz target's way in: the relay's replies decoded with the wire types the daemon reads them with.
public enum RelayPollReply {
    /// A long-poll's reply; each message's `data` as delivered.
    public static func messages(_ body: Data) throws -> [[String: String]] {
        try JSONDecoder().decode(PollReply.self, from: body).messages.map(\.data)
    }

    /// A registration's reply.
    public static func registration(_ body: Data) -> Bool {
        (try? JSONDecoder().decode(DeviceRegistration.self, from: body)) != nil
    }
}
