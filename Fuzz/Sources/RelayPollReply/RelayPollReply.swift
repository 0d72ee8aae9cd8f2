import Foundation

/// The fuzz target's way in: RelayDeviceClient.swift (the daemon's own file, symlinked) keeps its types internal.
public enum RelayPollReply {
    /// A long-poll's reply, decoded as the daemon's relay client does; each message's `data` as delivered.
    public static func messages(_ body: Data) throws -> [[String: String]] {
        try JSONDecoder().decode(RelayDeviceClient.Batch.self, from: body).messages.map(\.data)
    }

    /// A registration's reply.
    public static func registration(_ body: Data) -> Bool {
        (try? JSONDecoder().decode(RelayDeviceClient.Registration.self, from: body)) != nil
    }
}
