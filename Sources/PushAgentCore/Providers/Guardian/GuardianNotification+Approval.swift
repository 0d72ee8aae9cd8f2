import Foundation

extension GuardianNotification {
    /// The normalized approval. `issuer` and `accountName` come from the enrolled account.
    public func approvalDraft(accountId: String, issuer: String, accountName: String) throws
        -> ApprovalDraft {
        let context = ApprovalContext(app: issuer, user: accountName, location: locationText, userAgent: userAgentText,
                                      raw: rawContext)
        return ApprovalDraft(
            provider: .guardian, accountId: accountId, kind: .prompt, numbers: nil, title: "Sign-in to \(issuer)",
            // Guardian pushes are unsigned: anyone who can send to this device's token can write them.
            message: "Did you try to sign in as \(accountName)? The browser, system and place are as the push "
                + "states them; Guardian pushes are not signed.",
            context: context, requestedAt: startedAt, expiresAt: expiresAt, dedupeKey: dedupeKey,
            answerContext: try answerContext())
    }

    /// "Safari 9.0.3 on Mac OS 10.11.3", or whichever half the push gave.
    var userAgentText: String? {
        func named(_ software: Software?) -> String? {
            guard let software else { return nil }
            let words = [software.name, software.version].compactMap { $0 }
            return words.isEmpty ? nil : words.joined(separator: " ")
        }
        switch (named(browser), named(os)) {
        case (let browser?, let os?): return "\(browser) on \(os)"
        case (let one?, nil), (nil, let one?): return one
        case (nil, nil): return nil
        }
    }

    /// "Palermo, BA, Argentina", else the coordinates.
    var locationText: String? {
        if let name = location?.name { return name }
        guard let latitude = location?.latitude, let longitude = location?.longitude else { return nil }
        return "\(latitude), \(longitude)"
    }

    /// What the push said, for `context.raw`: the server host, the link id, the source and the place.
    var rawContext: JSONValue {
        var raw: [String: JSONValue] = [
            "server": .string(hostname), "started_at": .string(startedAt.formatted(.iso8601)),
        ]
        if let transactionLinkingId { raw["transaction_linking_id"] = .string(transactionLinkingId) }
        func software(_ value: Software?) -> JSONValue? {
            guard let value else { return nil }
            var members: [String: JSONValue] = [:]
            members["name"] = value.name.map(JSONValue.string)
            members["version"] = value.version.map(JSONValue.string)
            return .object(members)
        }
        raw["browser"] = software(browser)
        raw["os"] = software(os)
        if let location {
            var members: [String: JSONValue] = [:]
            members["name"] = location.name.map(JSONValue.string)
            members["latitude"] = location.latitude.map(JSONValue.number)
            members["longitude"] = location.longitude.map(JSONValue.number)
            raw["location"] = .object(members)
        }
        return .object(raw)
    }
}
