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
            items += EnrollmentURIEscaping.oathItems(totp)
        } else {
            head = "pushauth://push/"
            if let image { items.append(("image", Data(image.utf8).base64URLUnpadded)) }
        }
        return head + EnrollmentURIEscaping.label(issuer: issuer, account: accountName) + "?"
            + EnrollmentURIEscaping.query(items)
    }
}
