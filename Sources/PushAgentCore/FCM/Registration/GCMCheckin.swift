import Foundation
import SwiftProtobuf

/// The device identity GCM hands out at check-in: MCS logs in with it, and GCM registration authenticates with it.
public struct GCMDevice: Sendable, Equatable, Codable {
    public var androidID: UInt64
    public var securityToken: UInt64

    public init(androidID: UInt64, securityToken: UInt64) {
        self.androidID = androidID
        self.securityToken = securityToken
    }

    /// MCS's `device_id`: the android id in hex.
    public var mcsDeviceID: String { "android-" + String(androidID, radix: 16) }
}

/// GCM check-in (`POST /checkin`, protobuf) as Chrome on Linux does it: a new device, or an existing one renewing.
public enum GCMCheckin {
    /// Chrome's version string in the check-in and the MCS login; any current one is accepted.
    public static let chromeVersion = "94.0.4606.51"

    public static func request(renewing device: GCMDevice? = nil) throws -> Data {
        var chrome = CheckinProto_ChromeBuildProto()
        chrome.platform = .linux
        chrome.chromeVersion = chromeVersion
        chrome.channel = .stable
        var checkin = CheckinProto_AndroidCheckinProto()
        checkin.type = .deviceChromeBrowser
        checkin.chromeBuild = chrome
        var request = CheckinProto_AndroidCheckinRequest()
        request.userSerialNumber = 0
        request.checkin = checkin
        request.version = 3
        if let device {
            request.id = Int64(bitPattern: device.androidID)
            request.securityToken = device.securityToken
        }
        return try request.serializedBytes()
    }

    public static func device(fromResponse body: Data) throws(FCMRegistrationError) -> GCMDevice {
        let response: CheckinProto_AndroidCheckinResponse
        do { response = try CheckinProto_AndroidCheckinResponse(serializedBytes: body) } catch {
            throw .malformedReply(step: .checkin, "not a check-in response: \(error)")
        }
        guard response.hasAndroidID, response.hasSecurityToken, response.androidID != 0, response.securityToken != 0 else {
            throw .malformedReply(step: .checkin, "no android id or security token in the reply")
        }
        return GCMDevice(androidID: response.androidID, securityToken: response.securityToken)
    }
}
