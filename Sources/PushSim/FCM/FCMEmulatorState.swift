import Foundation
import PushAgentCore
import SwiftProtobuf

/// What the FCM emulator keeps across restarts (`pushsim fcm serve --state FILE`), as Google keeps registrations and
/// accepted messages through its own: a JSON file replaced whole on every change.
struct FCMEmulatorState: Codable {
    struct Device: Codable {
        var securityToken: UInt64
        var queue: [McsProto_DataMessageStanza]

        init(securityToken: UInt64, queue: [McsProto_DataMessageStanza]) {
            self.securityToken = securityToken
            self.queue = queue
        }

        enum CodingKeys: String, CodingKey { case securityToken, queue }

        init(from decoder: any Swift.Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            securityToken = try container.decode(UInt64.self, forKey: .securityToken)
            queue = try container.decode([Data].self, forKey: .queue).map { try McsProto_DataMessageStanza(serializedBytes: $0) }
        }

        func encode(to encoder: any Swift.Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(securityToken, forKey: .securityToken)
            try container.encode(try queue.map { try $0.serializedData() }, forKey: .queue)
        }
    }

    struct WebRegistration: Codable {
        var gcmToken: String
        var p256dh: Data
        var auth: Data
    }

    var devices: [UInt64: Device]
    var gcmRegistrations: [String: FCMEmulator.GCMRegistration]
    var installationsByRefresh: [String: String]
    var installationAuthTokens: Set<String>
    var webRegistrations: [String: WebRegistration]
    var sentCount: Int

    static func read(_ path: String) throws -> FCMEmulatorState {
        try JSONDecoder().decode(FCMEmulatorState.self, from: try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    func write(_ path: String) throws {
        try JSONEncoder().encode(self).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
