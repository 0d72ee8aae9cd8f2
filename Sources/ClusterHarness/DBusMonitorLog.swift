import Foundation

/// A Notify call as the notification server received it, and the id it answered with.
public struct SeenNotification: Sendable, Equatable {
    public var id: UInt32?
    public var appName: String
    public var summary: String
    public var body: String
    /// (key, label) pairs.
    public var actions: [[String]]
    public var urgency: UInt8?
    public var resident: Bool
    public var expireTimeout: Int32?

    public var actionKeys: [String] { actions.map { $0[0] } }
    public var actionLabels: [String] { actions.map { $0[1] } }
}

/// dbus-monitor's text, read back: Notify and CloseNotification calls, and the ids the server returned.
struct DBusMonitorLog {
    private struct Message {
        var header: String
        var body: [String]

        func field(_ name: String) -> String? {
            header.split(separator: " ").first { $0.hasPrefix(name + "=") }.map { String($0.dropFirst(name.count + 1)) }
        }
        var member: String? { field("member").map { $0.trimmingCharacters(in: .punctuationCharacters) } }
    }

    private let messages: [Message]

    init(_ text: String) {
        var messages: [Message] = []
        let starts = ["method call ", "method return ", "signal ", "error "]
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if starts.contains(where: line.hasPrefix) {
                messages.append(Message(header: String(line), body: []))
            } else if !messages.isEmpty {
                messages[messages.count - 1].body.append(String(line))
            }
        }
        self.messages = messages
    }

    var notifications: [SeenNotification] {
        messages.filter { $0.header.hasPrefix("method call ") && $0.member == "Notify" }.map { call in
            let body = call.body.joined(separator: "\n")
            let strings = Self.strings(in: body)
            let sections = body.components(separatedBy: "   array [")
            let actionStrings = sections.count > 1 ? Self.strings(in: sections[1].components(separatedBy: "\n   ]")[0]) : []
            let actions = stride(from: 0, to: actionStrings.count - 1, by: 2).map { [actionStrings[$0], actionStrings[$0 + 1]] }
            let hints = sections.count > 2 ? sections[2] : ""
            let urgency = hints.range(of: #"string "urgency"\s*variant\s*byte (\d+)"#, options: .regularExpression)
                .flatMap { UInt8(hints[$0].split(separator: " ").last ?? "") }
            let timeout = body.split(separator: "\n").last { $0.hasPrefix("   int32 ") }.flatMap { Int32($0.dropFirst(9)) }
            return SeenNotification(
                id: returnedId(for: call), appName: strings.first ?? "", summary: strings.count > 2 ? strings[2] : "",
                body: strings.count > 3 ? strings[3] : "", actions: actions, urgency: urgency,
                resident: hints.range(of: #"string "resident"\s*variant\s*boolean true"#, options: .regularExpression) != nil,
                expireTimeout: timeout)
        }
    }

    var closedIds: [UInt32] {
        messages.filter { $0.header.hasPrefix("method call ") && $0.member == "CloseNotification" }.compactMap { call in
            call.body.first { $0.hasPrefix("   uint32 ") }.flatMap { UInt32($0.dropFirst(10)) }
        }
    }

    private func returnedId(for call: Message) -> UInt32? {
        guard let sender = call.field("sender"), let serial = call.field("serial") else { return nil }
        let reply = messages.first {
            $0.header.hasPrefix("method return ") && $0.field("destination") == sender && $0.field("reply_serial") == serial
        }
        return reply?.body.first { $0.hasPrefix("   uint32 ") }.flatMap { UInt32($0.dropFirst(10)) }
    }

    /// The `string "…"` values in order; a value may span lines.
    private static func strings(in text: String) -> [String] {
        let pattern = /string "((?:[^"\\]|\\.)*)"/
        return text.matches(of: pattern).map { String($0.output.1) }
    }
}
