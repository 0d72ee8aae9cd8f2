import RelayWire

/// A poll's reply written directly: through `JSONEncoder` it took a sixteenth of the relay's CPU with devices polling
/// (docs/benchmarks.md). The same document `jsonBody` writes: keys sorted, slashes unescaped.
extension PollReply {
    var jsonText: String {
        var text = "{\"messages\":["
        for (index, message) in messages.enumerated() {
            if index > 0 { text += "," }
            message.appendJSON(to: &text)
        }
        text += "],\"next\":\(next)}"
        return text
    }
}

extension RelayMessage {
    fileprivate func appendJSON(to text: inout String) {
        text += "{\"data\":"
        JSONText.appendObject(data, to: &text)
        text += ",\"expires_at\":"
        JSONText.appendString(RelayTime.rfc3339(milliseconds: expiresAt), to: &text)
        text += ",\"id\":"
        JSONText.appendString(id, to: &text)
        if let notification {
            text += ",\"notification\":"
            JSONText.appendObject(notification, to: &text)
        }
        text += ",\"priority\":"
        JSONText.appendString(priority.rawValue, to: &text)
        text += ",\"sent_at\":"
        JSONText.appendString(RelayTime.rfc3339(milliseconds: sentAt), to: &text)
        text += ",\"seq\":\(seq)}"
    }
}
