import Foundation
import PostgresNIO
import RelayWire

/// The statements on a send's and a poll's path, prepared once per connection (postgres-nio keeps them by name):
/// PostgreSQL then parses and plans them once, not on every call.
enum PostgresStatements {
    struct Enqueue: PostgresPreparedStatement {
        typealias Row = (Int64, Int)

        static let sql = "SELECT seq, collapsed FROM pushrelay_enqueue($1, $2, $3, $4, $5, $6, $7, $8, $9)"
        static let bindingDataTypes: [PostgresDataType] = [.text, .text, .text, .text, .text, .text, .int8, .int8, .int8]

        var deviceID: String
        var messageID: String
        var data: String
        var notification: String?
        var priority: String
        var collapseKey: String?
        var now: Int64
        var expiresAt: Int64
        var limit: Int64

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 9)
            bindings.append(deviceID)
            bindings.append(messageID)
            bindings.append(data)
            bindings.append(notification)
            bindings.append(priority)
            bindings.append(collapseKey)
            bindings.append(now)
            bindings.append(expiresAt)
            bindings.append(limit)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    /// `pushrelay_poll`: no row when the device does not exist; else one row per message, or a single row without
    /// one, each carrying what was acknowledged and the device's delivery mark as the poll found it.
    struct Poll: PostgresPreparedStatement {
        typealias Row = (Int, Int64, Int64?, String?, String?, String?, String?, Int64?, Int64?)

        static let sql = """
            SELECT acknowledged, delivered, seq, message_id, data, notification, priority, sent_at, expires_at
            FROM pushrelay_poll($1, $2, $3, $4, $5)
            """
        static let bindingDataTypes: [PostgresDataType] = [.text, .int8, .int4, .int8, .bool]

        var deviceID: String
        var after: Int64
        var limit: Int32
        var now: Int64
        /// False for a woken long-poll, which acknowledged when it began.
        var acknowledge: Bool

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 5)
            bindings.append(deviceID)
            bindings.append(after)
            bindings.append(limit)
            bindings.append(now)
            bindings.append(acknowledge)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }

        struct Reply {
            var acknowledged: Int
            var delivered: Int64
            var messages: [RelayMessage]

            /// Nil for no rows: the device does not exist.
            init?(_ rows: [Row]) throws {
                guard let first = rows.first else { return nil }
                acknowledged = first.0
                delivered = first.1
                let decoder = JSONDecoder()
                messages = try rows.compactMap { row in
                    guard let seq = row.2, let id = row.3, let data = row.4, let priority = row.6, let sentAt = row.7,
                          let expiresAt = row.8 else { return nil }
                    return try RelayMessage(
                        seq: seq, id: id, data: data, notification: row.5, priority: priority, sentAt: sentAt,
                        expiresAt: expiresAt, decoder: decoder)
                }
            }
        }
    }
}
