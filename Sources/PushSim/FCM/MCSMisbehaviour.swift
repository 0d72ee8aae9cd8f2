import Foundation
import PushAgentCore

/// What a hostile or broken MCS server does after a login, for the receiver's robustness tests
/// (`POST /fcm/sim/misbehave {"mode"}`: the next session does it).
enum MCSMisbehaviour: String, Codable, Sendable, CaseIterable {
    /// Bytes that are no stanza.
    case garbage
    /// A data stanza announcing 2 GiB.
    case hugeLength = "huge_length"
    /// The login answered under version 40.
    case wrongVersion = "wrong_version"
    /// A data stanza encrypted for someone else.
    case undecryptable
    /// Nothing more: no pings, no acks, no answers.
    case silent
    /// A stanza that never ends, a byte at a time, and nothing else: the connection looks alive byte by byte.
    case trickle
    /// The login answered with error 503 (busy), then a Close: a reason to try again, not to register again.
    case refuseLogin503 = "refuse_login_503"
    /// The login answered with error 401, as for a device Google does not know, whatever the device.
    case refuseLogin401 = "refuse_login_401"
    /// The login accepted, then the connection closed at once.
    case closeAfterLogin = "close_after_login"
    /// 100,000 heartbeat pings as fast as they can be written, then an ordinary session.
    case pingFlood = "ping_flood"

    static let floodPings = 100_000

    /// The error code the login is refused with, for the modes that refuse it.
    var loginRefusal: Int32? {
        switch self {
        case .refuseLogin503: 503
        case .refuseLogin401: 401
        default: nil
        }
    }

    /// Starts misbehaving after the login response; true when the session must answer nothing from now on.
    func act(on outbox: MCSSessionOutbox) throws -> Bool {
        switch self {
        case .garbage:
            outbox.send(raw: Data([0xff, 0xfe, 0x00, 0x01]) + Data((0..<64).map { _ in UInt8.random(in: 0...255) }))
        case .hugeLength:
            outbox.send(raw: Data([8, 0x80, 0x80, 0x80, 0x80, 0x08]))
        case .undecryptable:
            let stranger = WebPushKeys.generate()
            let sealed = try WebPushSender(receiverPublicKey: stranger.publicKey, authSecret: stranger.authSecret)
                .encrypt(aesgcm: Data(#"{"data":{"messageId":"x"}}"#.utf8))
            outbox.send(.data(FCMEmulator.dataStanza(sealed, from: "hostile", subtype: "")))
        case .pingFlood:
            // A ping is tag 0 with an empty body; ten writes of 10,000 each.
            for _ in 0..<10 { outbox.send(raw: Data(repeating: 0, count: Self.floodPings / 10 * 2)) }
        case .wrongVersion, .silent, .refuseLogin503, .refuseLogin401, .closeAfterLogin:
            break
        case .trickle:
            outbox.send(raw: Data([6, 0xc0, 0x9a, 0x0c]))  // a presence stanza of 200,000 bytes, begun
            Task {
                while !outbox.isFinished, (try? await Task.sleep(for: .milliseconds(100))) != nil {
                    outbox.send(raw: Data([0]))
                }
            }
        }
        return self == .silent || self == .trickle
    }
}
