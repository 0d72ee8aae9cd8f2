import Foundation
import PostgresNIO
import RelayWire

/// The statements on a send's and a poll's path, prepared once per connection (postgres-nio keeps them by name):
/// PostgreSQL then parses and plans them once, not on every call.
enum PostgresStatements {
    /// `pushrelay_enqueue_batch`: one row per send whose device exists, by its place in the batch (1-based); a
    /// null seq is a full queue.
    struct EnqueueBatch: PostgresPreparedStatement {
        typealias Row = (Int32, Int64?, Int)

        static let sql = "SELECT ord, seq, collapsed FROM pushrelay_enqueue_batch($1, $2, $3, $4, $5, $6, $7, $8, $9)"
        static let bindingDataTypes: [PostgresDataType] = [
            .textArray, .textArray, .textArray, .textArray, .textArray, .textArray, .int8Array, .int8Array, .int8,
        ]

        struct Send: Sendable {
            var deviceID: String
            var messageID: String
            var data: String
            var notification: String?
            var priority: String
            var collapseKey: String?
            var sentAt: Int64
            var expiresAt: Int64
        }

        var sends: [Send]
        var limit: Int64

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 9)
            bindings.append(sends.map(\.deviceID))
            bindings.append(sends.map(\.messageID))
            bindings.append(sends.map(\.data))
            bindings.append(NullableTextArray(sends.map(\.notification)))
            bindings.append(sends.map(\.priority))
            bindings.append(NullableTextArray(sends.map(\.collapseKey)))
            bindings.append(sends.map(\.sentAt))
            bindings.append(sends.map(\.expiresAt))
            bindings.append(limit)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    /// `pushrelay_poll_batch`: for each poll, by its place in the batch (1-based), no row when the device does not
    /// exist; else one row per message, or a single row without one, each carrying what was acknowledged and the
    /// device's delivery mark as the poll found it.
    struct PollBatch: PostgresPreparedStatement {
        typealias Row = (Int32, Int, Int64, Int64?, String?, String?, String?, String?, Int64?, Int64?)

        static let sql = """
            SELECT ord, acknowledged, delivered, seq, message_id, data, notification, priority, sent_at, expires_at
            FROM pushrelay_poll_batch($1, $2, $3, $4, $5)
            """
        static let bindingDataTypes: [PostgresDataType] = [.textArray, .int8Array, .int4Array, .int8Array, .boolArray]

        struct Poll: Sendable {
            var deviceID: String
            var after: Int64
            var limit: Int32
            var now: Int64
            /// False for a woken long-poll, which acknowledged when it began.
            var acknowledge: Bool
        }

        var polls: [Poll]

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 5)
            bindings.append(polls.map(\.deviceID))
            bindings.append(polls.map(\.after))
            bindings.append(polls.map(\.limit))
            bindings.append(polls.map(\.now))
            bindings.append(polls.map(\.acknowledge))
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }

        struct Reply: Sendable {
            var acknowledged: Int
            var delivered: Int64
            var messages: [RelayMessage]

            /// Nil for no rows: the device does not exist.
            init?(_ rows: [Row]) throws {
                guard let first = rows.first else { return nil }
                acknowledged = first.1
                delivered = first.2
                let decoder = JSONDecoder()
                messages = try rows.compactMap { row in
                    guard let seq = row.3, let id = row.4, let data = row.5, let priority = row.7, let sentAt = row.8,
                          let expiresAt = row.9 else { return nil }
                    return try RelayMessage(
                        seq: seq, id: id, data: data, notification: row.6, priority: priority, sentAt: sentAt,
                        expiresAt: expiresAt, decoder: decoder)
                }
            }
        }
    }
}

/// A `text[]` with null elements, which postgres-nio's arrays cannot hold (their elements are not optional).
struct NullableTextArray: PostgresNonThrowingEncodable {
    static var psqlType: PostgresDataType { .textArray }
    static var psqlFormat: PostgresFormat { .binary }

    var elements: [String?]

    init(_ elements: [String?]) {
        self.elements = elements
    }

    /// PostgreSQL's binary array: dimensions, a has-nulls flag, the element type, then each dimension's length and
    /// lower bound, then each element as its length and bytes, -1 for null.
    func encode<JSONEncoder: PostgresJSONEncoder>(into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        buffer.writeInteger(elements.isEmpty ? 0 : 1, as: Int32.self)
        buffer.writeInteger(elements.contains(nil) ? 1 : 0, as: Int32.self)
        buffer.writeInteger(PostgresDataType.text.rawValue)
        guard !elements.isEmpty else { return }
        buffer.writeInteger(Int32(elements.count))
        buffer.writeInteger(1, as: Int32.self)
        for element in elements {
            guard let element else {
                buffer.writeInteger(-1, as: Int32.self)
                continue
            }
            buffer.writeInteger(Int32(element.utf8.count))
            buffer.writeString(element)
        }
    }
}
