import Foundation

extension ForgeRockEnrollmentURI {
    /// The URI as AM puts it in a QR code (pushsim issues these). Push and push+TOTP URIs render as `pushauth://push`
    /// and `mfauth://totp`; an `.hotp` value renders as push only, since the HOTP secret is not kept.
    public var uriString: String {
        var items: [(String, String)] = [
            ("r", Data(registrationURL.utf8).base64URLUnpadded),
            ("a", Data(authenticationURL.utf8).base64URLUnpadded),
            ("s", sharedSecret.base64URLUnpadded),
            ("c", challenge.base64URLUnpadded),
        ]
        if let cookie { items.append(("l", Data(cookie.utf8).base64URLUnpadded)) }
        items.append(("m", registrationMessageId))
        items.append(("issuer", Data(issuer.utf8).base64URLUnpadded))
        if let backgroundColor { items.append(("b", backgroundColor.hasPrefix("#") ? String(backgroundColor.dropFirst()) : backgroundColor)) }
        if let policies { items.append(("policies", Data(policies.utf8).base64URLUnpadded)) }
        if let userId { items.append(("uid", Data(userId.utf8).base64URLUnpadded)) }
        if let pushResourceId { items.append(("pid", Data(pushResourceId.utf8).base64URLUnpadded)) }

        let head: String
        if mechanism == .totp, let totp {
            head = "mfauth://totp/"
            if let image { items.append(("image", image)) }
            items += [("secret", Base32.encode(totp.secret)), ("digits", String(totp.digits)),
                      ("period", String(totp.period)), ("algorithm", totp.algorithm.rawValue.uppercased())]
        } else {
            head = "pushauth://push/"
            if let image { items.append(("image", Data(image.utf8).base64URLUnpadded)) }
        }
        // Apps decode the label before splitting it at the first `:`, so a colon in the issuer would cut the account
        // name; the `issuer` parameter carries the exact issuer anyway.
        let labelIssuer = issuer.replacingOccurrences(of: ":", with: "")
        let label = Self.escape(labelIssuer, keeping: Self.labelCharacters) + ":"
            + Self.escape(accountName, keeping: Self.labelCharacters)
        let query = items.map { "\($0.0)=\(Self.escape($0.1, keeping: Self.queryCharacters))" }.joined(separator: "&")
        return head + label + "?" + query
    }

    // RFC 3986 unreserved plus what is harmless in each position; `+` is always escaped because form decoders
    // elsewhere would read it as a space.
    private static let queryCharacters = CharacterSet(charactersIn:
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/@!$'()*,;=")
    private static let labelCharacters = CharacterSet(charactersIn:
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~@!$'()*,;")

    private static func escape(_ text: String, keeping allowed: CharacterSet) -> String {
        text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
