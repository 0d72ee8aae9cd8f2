import Foundation
import PushSim
import Synchronization

/// What identifies a message wherever it ends up: its body's first 18 bytes, which every hop carries unchanged (the
/// relay never decrypts a Web Push body; a UnifiedPush distributor hands it to the app as it came): the message's
/// number, when its sender began to POST it (CLOCK_MONOTONIC, ns), and the run it belongs to. 18 bytes are exactly
/// 24 base64url characters, so a body's encoding differs between messages only in its first 24 characters.
struct MessageStamp: Equatable {
    static let byteCount = 18
    var number: UInt64
    var sentAt: UInt64
    var run: UInt16

    func write(to bytes: inout [UInt8], at offset: Int = 0) {
        for index in 0..<8 {
            bytes[offset + index] = UInt8(truncatingIfNeeded: number >> (8 * UInt64(index)))
            bytes[offset + 8 + index] = UInt8(truncatingIfNeeded: sentAt >> (8 * UInt64(index)))
        }
        bytes[offset + 16] = UInt8(truncatingIfNeeded: run)
        bytes[offset + 17] = UInt8(truncatingIfNeeded: run >> 8)
    }

    init(number: UInt64, sentAt: UInt64, run: UInt16) {
        self.number = number
        self.sentAt = sentAt
        self.run = run
    }

    init(_ bytes: some RandomAccessCollection<UInt8>) {
        let bytes = Array(bytes)
        number = (0..<8).reduce(0) { $0 | UInt64(bytes[$1]) << (8 * UInt64($1)) }
        sentAt = (0..<8).reduce(0) { $0 | UInt64(bytes[8 + $1]) << (8 * UInt64($1)) }
        run = UInt16(bytes[16]) | UInt16(bytes[17]) << 8
    }
}

/// Which messages of one run arrived, when, and how long after their sender began to send them. Fed by the delivery
/// end's threads, read by the run. Counts within `window` (receipt time) apart from the totals.
final class DeliveryLog: @unchecked Sendable {
    let run: UInt16
    let window: ClosedRange<UInt64>
    private let condition = NSCondition()
    private var seen: [UInt64] = []
    private var total = 0, inWindow = 0, twice = 0, strays = 0
    /// Send → receipt, ns, of the messages first received within the window.
    private var latencies: [UInt64] = []

    init(run: UInt16, window: ClosedRange<UInt64>) {
        self.run = run
        self.window = window
    }

    /// One batch, as a poll's answer (or an app's call) brought it at `instant`.
    func received(_ stamps: [MessageStamp], at instant: UInt64) {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        for stamp in stamps {
            guard stamp.run == run else {
                strays += 1
                continue
            }
            let word = Int(stamp.number / 64), bit = UInt64(1) << (stamp.number % 64)
            if word >= seen.count { seen += repeatElement(0, count: max(word + 1 - seen.count, 1024)) }
            guard seen[word] & bit == 0 else {
                twice += 1
                continue
            }
            seen[word] |= bit
            total += 1
            if window.contains(instant) {
                inWindow += 1
                latencies.append(instant &- stamp.sentAt)
            }
        }
    }

    /// Until `count` distinct messages of this run arrived; false if `timeout` passed first.
    func waitUntilDelivered(_ count: Int, timeout: Duration) -> Bool {
        let deadline = Date().addingTimeInterval(Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18)
        condition.lock()
        defer { condition.unlock() }
        while total < count {
            guard condition.wait(until: deadline) else { return total >= count }
        }
        return true
    }

    struct Figures {
        var total: Int
        var inWindow: Int
        var duplicates: Int
        var strays: Int
        /// Sorted, milliseconds.
        var latencies: [Double]
    }

    var figures: Figures {
        condition.lock()
        defer { condition.unlock() }
        return Figures(total: total, inWindow: inWindow, duplicates: twice, strays: strays,
                       latencies: latencies.map { Double($0) / 1e6 }.sorted())
    }
}

/// The receiving end of `pushbench webpush`: what makes the endpoints and tokens the senders send to, and reports
/// each message that reaches it to the current `DeliveryLog`. `--deliver-to relay-poll`: the devices' own long-polls
/// on the relay (`RelayPollEnd`), a message delivered when the poll's answer carrying it has been read.
/// `--deliver-to app` (issue 45's second half): pushagentd as a UnifiedPush distributor and an app registered with it
/// on a private session bus (`AppEnd`), a message delivered when the app's `org.unifiedpush.Connector2.Message` call
/// brings it (the body is the app's, unchanged, so its first 18 bytes are the `MessageStamp` as sent). The senders,
/// the runs and the report are the same for both.
protocol DeliveryEnd: AnyObject, Sendable {
    /// One line for the report: what "delivered" means for this end.
    var description: String { get }
    /// Web Push endpoints, `perRecipient` for each recipient, in an order where consecutive ones belong to different
    /// recipients; restricted to `applicationServerKey` (VAPID) when given.
    func webPushEndpoints(perRecipient: Int, applicationServerKey: String?) async throws -> [String]
    /// FCM registration tokens, one per recipient; nil when this end takes no FCM sends.
    func fcmTokens() -> [String]?
    /// Starts receiving; from now on every message is reported to the log last given to `record(into:)`.
    func start() throws
    func record(into log: DeliveryLog)
    /// Set when receiving failed (the end stopped counting): the run's figures are not to be trusted.
    var failure: String? { get }
    /// Polls the relay answered `409 cursor_ahead` (the device then starts again from 0), over the end's life.
    var restarts: Int { get }
    func stop() async
}

/// The devices' long-polls on the relay: `devices` registered devices, each keeping `GET
/// /v1/devices/{id}/messages?after=<next>&wait=30` waiting on a connection and thread of its own, acknowledging each
/// answer with its next poll, as pushagentd does.
final class RelayPollEnd: DeliveryEnd, @unchecked Sendable {
    private struct Device {
        var id: String
        var token: String
        var secret: String
    }

    private let port: Int
    private let devices: [Device]
    private let state = NSLock()
    private var log: DeliveryLog?
    private var connections: [BlockingHTTPConnection] = []
    private let threads = DispatchGroup()
    private var stopping = false
    private var failed: String?
    private var aheads = 0

    var description: String {
        "\(devices.count) devices each long-polling the relay (wait=30, acknowledging with the next poll); delivered = the poll's answer read"
    }

    init(port: Int, devices count: Int) throws {
        self.port = port
        let client = SetupClient(port: port)
        devices = try (0..<count).map { index in
            let reply = try client.json("POST", "/v1/devices", object: ["name": "bench-\(index)", "platform": "linux"], expect: 201)
            guard let id = reply["device_id"] as? String, let token = reply["token"] as? String,
                  let secret = reply["secret"] as? String else { throw BenchError("POST /v1/devices: \(reply)") }
            return Device(id: id, token: token, secret: secret)
        }
    }

    func webPushEndpoints(perRecipient: Int, applicationServerKey: String?) throws -> [String] {
        let client = SetupClient(port: port)
        var endpoints: [String] = []
        for _ in 0..<perRecipient {
            for device in devices {
                let reply = try client.json(
                    "POST", "/v1/devices/\(device.id)/webpush", bearer: device.secret,
                    object: applicationServerKey.map { ["application_server_key": $0] } ?? [:], expect: 201)
                guard let endpoint = reply["endpoint"] as? String else { throw BenchError("no endpoint in \(reply)") }
                endpoints.append(endpoint)
            }
        }
        return endpoints
    }

    func fcmTokens() -> [String]? { devices.map(\.token) }

    func record(into log: DeliveryLog) { state.withLock { self.log = log } }

    var failure: String? { state.withLock { failed } }
    var restarts: Int { state.withLock { aheads } }

    func start() throws {
        for device in devices {
            let connection = try BlockingHTTPConnection(port: port)
            state.withLock { connections.append(connection) }
            threads.enter()
            let thread = Thread { [self] in
                defer { threads.leave() }
                poll(device, on: connection)
            }
            thread.stackSize = 256 * 1024
            thread.start()
        }
    }

    private func poll(_ device: Device, on connection: BlockingHTTPConnection) {
        var after: Int64 = 0
        let prefix = "GET /v1/devices/\(device.id)/messages?wait=30&after="
        let suffix = " HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAuthorization: Bearer \(device.secret)\r\n\r\n"
        do {
            while true {
                try connection.send(Array((prefix + String(after) + suffix).utf8))
                let (status, stamps, next) = try connection.readResponse { status, body in
                    (status, Self.stamps(in: body), Self.next(in: body))
                }
                let instant = MonotonicTime.nanoseconds()
                switch status {
                case 200:
                    guard let next else { throw BenchError("a poll's answer without next") }
                    if !stamps.isEmpty { state.withLock { log }?.received(stamps, at: instant) }
                    after = next
                case 409:
                    state.withLock { aheads += 1 }
                    after = 0
                default:
                    throw BenchError("a poll answered \(status)")
                }
            }
        } catch {
            state.withLock { if !stopping, failed == nil { failed = "device \(device.id): \(error)" } }
        }
    }

    func stop() {
        let open = state.withLock {
            stopping = true
            return connections
        }
        for connection in open { connection.shutDown() }
        threads.wait()
        state.withLock { connections = [] }
    }

    /// Every message's stamp: the first 24 characters after `body":"`, which begins both a Web Push message's
    /// `"webpush.body":"` and the FCM sends' `"body":"` (`SendPath`). Read without a JSON parser, so that reading
    /// answers takes the generator little CPU.
    static func stamps(in body: UnsafeBufferPointer<UInt8>) -> [MessageStamp] {
        let marker = Array(#"body":""#.utf8)
        var stamps: [MessageStamp] = []
        guard let base = body.baseAddress else { return [] }
        var offset = 0
        while offset < body.count,
              let found = firstIndex(of: marker, in: UnsafeBufferPointer(start: base + offset, count: body.count - offset)) {
            let start = offset + found + marker.count
            guard start + 24 <= body.count, let bytes = Base64URL.decode(UnsafeBufferPointer(rebasing: body[start..<start + 24]))
            else { break }
            stamps.append(MessageStamp(bytes))
            offset = start + 24
        }
        return stamps
    }

    /// The answer's `"next":<seq>`, its last member.
    static func next(in body: UnsafeBufferPointer<UInt8>) -> Int64? {
        let marker = Array(#""next":"#.utf8)
        guard body.count > marker.count else { return nil }
        var index = body.count - marker.count
        while index >= 0 {
            if body[index] == marker[0], (0..<marker.count).allSatisfy({ body[index + $0] == marker[$0] }) {
                var value: Int64 = 0, position = index + marker.count
                while position < body.count, body[position] >= 48, body[position] <= 57 {
                    value = value * 10 + Int64(body[position] - 48)
                    position += 1
                }
                return value
            }
            index -= 1
        }
        return nil
    }
}

/// Unpadded base64url, for stamps and bodies (Foundation's base64 plus two replacements per message would be the
/// generator's own cost).
enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private static let values: [Int16] = {
        var table = [Int16](repeating: -1, count: 256)
        for (index, character) in alphabet.enumerated() { table[Int(character)] = Int16(index) }
        return table
    }()

    static func encode(_ bytes: some Collection<UInt8>) -> [UInt8] {
        let bytes = Array(bytes)
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= bytes.count {
            let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            out += [alphabet[Int(value >> 18)], alphabet[Int(value >> 12 & 63)], alphabet[Int(value >> 6 & 63)], alphabet[Int(value & 63)]]
            index += 3
        }
        let rest = bytes.count - index
        if rest > 0 {
            let value = UInt32(bytes[index]) << 16 | (rest == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
            out += [alphabet[Int(value >> 18)], alphabet[Int(value >> 12 & 63)]]
            if rest == 2 { out.append(alphabet[Int(value >> 6 & 63)]) }
        }
        return out
    }

    static func string(_ bytes: some Collection<UInt8>) -> String { String(decoding: encode(bytes), as: UTF8.self) }

    /// Whole groups of four characters only (what a stamp is).
    static func decode(_ characters: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard characters.count % 4 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(characters.count / 4 * 3)
        var index = 0
        while index < characters.count {
            var value: UInt32 = 0
            for offset in 0..<4 {
                let digit = values[Int(characters[index + offset])]
                guard digit >= 0 else { return nil }
                value = value << 6 | UInt32(digit)
            }
            out += [UInt8(value >> 16), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)]
            index += 4
        }
        return out
    }
}
