import Foundation

/// The spec's limits on what apps send. A call breaking them is refused on the bus with InvalidArgs and the reason,
/// so the app's developer sees what is wrong, and the distributor never stores a token or name it could not use.
enum CallValidation {
    static let maxTokenBytes = 100
    static let maxDescriptionBytes = 100
    static let vapidLength = 87

    /// The call as the distributor gets it, or why it is refused.
    static func register(service: String, token: String, description: String?, vapid: String?,
                         version: ConnectorVersion, sender: String) -> Result<RegisterCall, Refusal> {
        if let problem = serviceProblem(service) ?? tokenProblem(token) { return .failure(Refusal(problem)) }
        let vapid = vapid.flatMap { $0.isEmpty ? nil : $0 }
        if let vapid, let problem = vapidProblem(vapid) { return .failure(Refusal(problem)) }
        return .success(RegisterCall(service: service, token: token, description: truncatedDescription(description),
                                     vapid: vapid, version: version, sender: sender))
    }

    static func unregister(token: String, version: ConnectorVersion, sender: String) -> Result<UnregisterCall, Refusal> {
        if let problem = tokenProblem(token) { return .failure(Refusal(problem)) }
        return .success(UnregisterCall(token: token, version: version, sender: sender))
    }

    static func tokenProblem(_ token: String) -> String? {
        if token.isEmpty { return "the token is empty" }
        if token.utf8.count > maxTokenBytes {
            return "the token is \(token.utf8.count) bytes long; the spec allows at most \(maxTokenBytes)"
        }
        return nil
    }

    /// The service is where the app is called and D-Bus-activated later, so it must be a well-known name: a unique
    /// name (":1.42") dies with the connection and cannot be activated.
    static func serviceProblem(_ service: String) -> String? {
        // Quoted short: the name may be anything an app sent, and the error text has a bounded size.
        let quoted = service.count > 80 ? "\"\(service.prefix(80))…\"" : "\"\(service)\""
        if service.hasPrefix(":") { return "the service \(quoted) is a unique connection name; give the app's well-known bus name" }
        if let problem = wellKnownNameProblem(service) { return "the service \(quoted) is not a valid bus name: \(problem)" }
        return nil
    }

    /// The D-Bus specification's rules for a well-known bus name.
    static func wellKnownNameProblem(_ name: String) -> String? {
        if name.isEmpty { return "it is empty" }
        if name.utf8.count > 255 { return "it is longer than 255 bytes" }
        if !name.utf8.allSatisfy({ isNameByte($0) || $0 == UInt8(ascii: ".") }) {
            return "only A-Z, a-z, 0-9, _ and - may appear between the dots"
        }
        let elements = name.split(separator: ".", omittingEmptySubsequences: false)
        if elements.count < 2 { return "it needs at least two elements separated by dots" }
        for element in elements {
            if element.isEmpty { return "it has an empty element" }
            if element.first!.isNumber { return "an element starts with a digit" }
        }
        return nil
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"): true
        default: false
        }
    }

    /// Only shown to the user, so an over-long description is cut (at a character boundary) rather than costing the
    /// app its push messages; an empty one is none.
    static func truncatedDescription(_ description: String?) -> String? {
        guard let description, !description.isEmpty else { return nil }
        guard description.utf8.count > maxDescriptionBytes else { return description }
        var kept = ""
        var bytes = 0
        for character in description {
            let size = character.utf8.count
            if bytes + size > maxDescriptionBytes { break }
            kept.append(character)
            bytes += size
        }
        return kept.isEmpty ? nil : kept
    }

    /// A VAPID public key as RFC 8292 has apps send it: an uncompressed P-256 point (65 bytes, 0x04 first) in
    /// unpadded base64url, which the push server will later check senders against.
    static func vapidProblem(_ vapid: String) -> String? {
        let alphabet = vapid.utf8.allSatisfy(isNameByte)
        guard vapid.utf8.count == vapidLength, alphabet else {
            return "the vapid key must be \(vapidLength) characters of unpadded base64url (an uncompressed P-256 public key)"
        }
        var base64 = vapid.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += "="
        guard let key = Data(base64Encoded: base64), key.count == 65, key.first == 0x04 else {
            return "the vapid key does not decode to an uncompressed P-256 public key (65 bytes starting with 0x04)"
        }
        return nil
    }
}

/// Why a call is refused: the text of its InvalidArgs error.
struct Refusal: Error {
    let text: String
    init(_ text: String) { self.text = text }
}
