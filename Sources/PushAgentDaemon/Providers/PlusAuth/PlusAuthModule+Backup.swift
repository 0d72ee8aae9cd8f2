import Foundation
import PushAgentCore

/// A PlusAuth account bound to its machine (bind_sim) cannot move with a backup: PlusAuth would refuse it anyway.
extension PlusAuthModule {
    func isBoundToMachine(credentials: Data) -> Bool {
        (try? JSONDecoder().decode(PlusAuthCredentials.self, from: credentials))?.binding.bindsToMachine ?? false
    }

    func restoredCredentials(_ credentials: Data, at now: Date) throws -> Data {
        var decoded = try JSONDecoder().decode(PlusAuthCredentials.self, from: credentials)
        decoded.binding = decoded.binding.restoredElsewhere(at: now)
        return try JSONEncoder().encode(decoded)
    }
}
