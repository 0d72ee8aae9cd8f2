import Foundation

/// The pieces of an enrollment URI, split by hand rather than with URLComponents: provider URIs need the query
/// split at the FIRST `=` (base64 padding survives), `+` kept as `+` (it is base64, not a space), and one rule on
/// every platform.
struct EnrollmentURIParts {
    /// A QR code holds under 3 KB; anything far larger is not a QR code's content.
    static let maximumBytes = 8192

    /// Lowercased.
    let scheme: String
    /// The authority (`push`, `totp`, `pipush`…), lowercased.
    let host: String
    /// The path without its slashes, percent-decoded: `Issuer:account`.
    let label: String
    /// Names and values percent-decoded.
    let query: [String: String]

    init(_ uri: String) throws(EnrollmentURIError) {
        // QR readers and copy-paste often add surrounding whitespace or a newline.
        let text = uri.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw .empty }
        guard text.utf8.count <= Self.maximumBytes else { throw .tooLong(bytes: text.utf8.count) }
        // Split by Unicode scalars, not Characters: a combining mark after a separator (`&\u{301}`) made one Character
        // with it, so the URI split there no more, where every other reader of the URI splits it.
        let scalars = text.unicodeScalars
        guard let separator = scalars.firstRange(of: "://".unicodeScalars) else { throw .notAURI }
        let scheme = String(scalars[..<separator.lowerBound]).lowercased()
        guard let first = scheme.first, first.isASCII, first.isLetter,
              scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+.-".contains($0)) })
        else { throw .notAURI }
        self.scheme = scheme

        var rest = scalars[separator.upperBound...]
        if let fragment = rest.firstIndex(of: "#") { rest = rest[..<fragment] }
        let question = rest.firstIndex(of: "?")
        let queryText = question.map { rest[rest.index(after: $0)...] } ?? rest[rest.endIndex...]
        let hierarchy = question.map { rest[..<$0] } ?? rest
        let slash = hierarchy.firstIndex(of: "/") ?? hierarchy.endIndex
        host = String(hierarchy[..<slash]).lowercased()

        let path = String(hierarchy[slash...]).trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        guard let label = path.removingPercentEncoding else {
            throw .brokenPercentEncoding(scheme: scheme, part: "the label")
        }
        self.label = label

        var query: [String: String] = [:]
        for item in queryText.split(separator: "&") {
            let equals = item.firstIndex(of: "=") ?? item.endIndex
            let rawName = Substring(item[..<equals])
            let rawValue = equals == item.endIndex ? "" : Substring(item[item.index(after: equals)...])
            guard let name = rawName.removingPercentEncoding, let value = rawValue.removingPercentEncoding else {
                throw .brokenPercentEncoding(scheme: scheme, part: "parameter '\(EnrollmentURIError.excerpt(rawName))'")
            }
            // A repeated parameter is ambiguous (apps disagree on which one wins), so it is refused.
            guard query.updateValue(value, forKey: name) == nil else {
                throw .duplicateParameter(scheme: scheme, name: EnrollmentURIError.excerpt(name))
            }
        }
        self.query = query
    }

    /// The label split at its first `:`, by Unicode scalars as the rest of the URI; nil without one.
    static func splitAtFirstColon(_ label: String) -> (before: String, after: String)? {
        let scalars = label.unicodeScalars
        guard let colon = scalars.firstIndex(of: ":") else { return nil }
        return (String(scalars[..<colon]), String(scalars[scalars.index(after: colon)...]))
    }
}
