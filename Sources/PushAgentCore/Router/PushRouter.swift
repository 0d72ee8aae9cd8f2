/// The push dialects the agent understands, as told apart by the keys of a message's `data`.
public enum PushDialect: Equatable, Sendable {
    /// Hyphen; `type` is the `hyphen:type` value (`2fa-request`, `2fa-status-change`) for the handler to sub-dispatch.
    case hyphen(type: String)
    case forgeRock
    case plusAuth
    case privacyIDEA
}

/// DESIGN.md §2 dispatch. Order matters: the first match wins, so a message carrying keys of two dialects
/// goes to the earlier one rather than depending on dictionary order.
public enum PushRouter {
    public static func route(_ data: [String: String]) -> PushDialect? {
        if let type = data["hyphen:type"] { return .hyphen(type: type) }
        if data["messageId"] != nil, data["message"] != nil { return .forgeRock }
        if data["context"] != nil { return .plusAuth }
        if data["nonce"] != nil, data["serial"] != nil, data["signature"] != nil { return .privacyIDEA }
        return nil
    }
}
