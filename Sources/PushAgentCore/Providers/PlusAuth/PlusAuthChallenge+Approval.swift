import Foundation

extension PlusAuthChallenge {
    /// The normalized approval. `issuer` and `accountName` come from the enrolled account and stand in for what
    /// the context's `info` leaves out.
    public func approvalDraft(accountId: String, issuer: String, accountName: String) throws -> ApprovalDraft {
        let application = text(info?["application"]) ?? issuer
        let user = text(info?["user_identifier"]) ?? accountName
        let context = ApprovalContext(app: application, user: user, ip: text(info?["ip"]), location: location,
                                      userAgent: userAgent, raw: info)
        return ApprovalDraft(
            provider: .plusauth, accountId: accountId, kind: kind == .code ? .number : .prompt, numbers: values,
            title: "Sign-in to \(application)", message: "Did you try to sign in as \(user)?", context: context,
            requestedAt: issuedAt, expiresAt: expiresAt.addingTimeInterval(PlusAuthPush.clockSkew),
            dedupeKey: dedupeKey, answerContext: try answerContext())
    }

    /// "Istanbul, TUR" from `info.location`.
    var location: String? {
        let place = info?["location"]
        let parts = [text(place?["city"]), text(place?["country"])].compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }

    /// "Chrome 120.0 on Windows 10" from `info.agent`, else its raw `ua`.
    var userAgent: String? {
        let agent = info?["agent"]
        func named(_ part: String) -> String? {
            guard let name = text(agent?[part]?["name"]) else { return nil }
            return [name, text(agent?[part]?["version"])].compactMap { $0 }.joined(separator: " ")
        }
        switch (named("browser"), named("os")) {
        case (let browser?, let os?): return "\(browser) on \(os)"
        case (let one?, nil), (nil, let one?): return one
        case (nil, nil): return text(agent?["ua"])
        }
    }

    /// A non-empty string member; PlusAuth fills unknown ones with "".
    private func text(_ value: JSONValue?) -> String? {
        guard let string = value?.stringValue?.trimmingCharacters(in: .whitespacesAndNewlines), !string.isEmpty
        else { return nil }
        return string
    }
}
