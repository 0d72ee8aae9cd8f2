import Foundation

/// Percent-encoding for the URIs pushsim issues (QR code contents).
enum EnrollmentURIEscaping {
    // RFC 3986 unreserved plus what is harmless in each position; `+` is always escaped because form decoders
    // elsewhere would read it as a space.
    private static let queryCharacters = CharacterSet(charactersIn:
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/@!$'()*,;=")
    private static let labelCharacters = CharacterSet(charactersIn:
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~@!$'()*,;")

    /// `Issuer:account`. Apps decode the label before splitting it at the first `:`, so a colon in the issuer would
    /// cut the account name; the `issuer` parameter carries the exact issuer anyway.
    static func label(issuer: String, account: String) -> String {
        escape(issuer.replacingOccurrences(of: ":", with: ""), keeping: labelCharacters) + ":"
            + escape(account, keeping: labelCharacters)
    }

    /// `name=value&…` in the given order.
    static func query(_ items: [(String, String)]) -> String {
        items.map { "\($0.0)=\(escape($0.1, keeping: queryCharacters))" }.joined(separator: "&")
    }

    /// The Key URI format's OATH parameters.
    static func oathItems(_ totp: TOTPParameters) -> [(String, String)] {
        [("secret", Base32.encode(totp.secret)), ("digits", String(totp.digits)), ("period", String(totp.period)),
         ("algorithm", totp.algorithm.rawValue.uppercased())]
    }

    private static func escape(_ text: String, keeping allowed: CharacterSet) -> String {
        text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
