import RelayWire
import Synchronization

/// Device credentials already read from the database: every send looks its token up and every poll its device's
/// secret, and neither changes while the device exists. An entry is only ever stale for a deleted device, which the
/// next write for it notices (and then forgets it here).
final class DeviceCache: Sendable {
    private struct Entries {
        var devices: [String: StoredDevice] = [:]
        var deviceIDByToken: [String: String] = [:]
        var tokenByDeviceID: [String: String] = [:]
    }

    private let entries = Mutex(Entries())

    func device(id: String) -> StoredDevice? {
        entries.withLock { $0.devices[id] }
    }

    func deviceID(token: String) -> String? {
        entries.withLock { $0.deviceIDByToken[token] }
    }

    func remember(_ device: StoredDevice) {
        entries.withLock { $0.devices[device.id] = device }
    }

    func remember(token: String, deviceID: String) {
        entries.withLock {
            $0.deviceIDByToken[token] = deviceID
            $0.tokenByDeviceID[deviceID] = token
        }
    }

    /// A device this relay just registered: its first send and poll then need no read, so its first message arrives as
    /// fast as its next ones.
    func remember(_ registration: DeviceRegistration) {
        remember(StoredDevice(id: registration.deviceID, secretDigest: secretDigest(registration.secret)))
        remember(token: registration.token, deviceID: registration.deviceID)
    }

    func forget(deviceID: String) {
        entries.withLock {
            $0.devices[deviceID] = nil
            if let token = $0.tokenByDeviceID.removeValue(forKey: deviceID) { $0.deviceIDByToken[token] = nil }
        }
    }
}
