import Foundation

/// Typed reads of an enrollment URI's query, each failure naming the parameter and what it is for.
struct EnrollmentParameters {
    let scheme: String
    let query: [String: String]

    /// Absent and empty are the same: QR generators write `&l=` for "no cookie".
    func optional(_ name: String) -> String? {
        query[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    func required(_ name: String, _ meaning: String) throws(EnrollmentURIError) -> String {
        guard let value = optional(name) else { throw .missingParameter(scheme: scheme, name: name, meaning: meaning) }
        return value
    }

    func requiredBase64(_ name: String, _ meaning: String) throws(EnrollmentURIError) -> Data {
        try base64(required(name, meaning), name, meaning)
    }

    func base64(_ value: String, _ name: String, _ meaning: String) throws(EnrollmentURIError) -> Data {
        guard let data = LenientBase64.decode(value), !data.isEmpty else {
            throw invalid(name, meaning, "is not valid base64")
        }
        return data
    }

    func base64Text(_ value: String, _ name: String, _ meaning: String) throws(EnrollmentURIError) -> String {
        guard let text = String(data: try base64(value, name, meaning), encoding: .utf8) else {
            throw invalid(name, meaning, "is not base64 of UTF-8 text")
        }
        return text
    }

    /// For cosmetic values that some servers encode and some do not: base64 text when it decodes to text, else as written.
    func base64TextOrPlain(_ name: String) -> String? {
        optional(name).map { LenientBase64.decodeText($0) ?? $0 }
    }

    /// An http(s) URL written in base64 (ForgeRock's `r` and `a`).
    func httpURL(_ name: String, _ meaning: String) throws(EnrollmentURIError) -> String {
        try checkedHTTPURL(base64Text(required(name, meaning), name, meaning), name, meaning)
    }

    /// An http(s) URL written plainly (percent-encoded in the query, as PlusAuth's `enrollment_url`).
    func plainHTTPURL(_ name: String, _ meaning: String) throws(EnrollmentURIError) -> String {
        try checkedHTTPURL(required(name, meaning), name, meaning)
    }

    func checkedHTTPURL(_ url: String, _ name: String, _ meaning: String) throws(EnrollmentURIError) -> String {
        guard let components = URLComponents(string: url),
              let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = components.host, !host.isEmpty
        else {
            throw invalid(name, meaning, "must be an http(s) URL, not '\(EnrollmentURIError.excerpt(url))'")
        }
        return url
    }

    func integer(_ name: String, _ meaning: String, default value: Int) throws(EnrollmentURIError) -> Int {
        guard let text = optional(name) else { return value }
        guard let number = Int(text) else { throw invalid(name, meaning, "must be a whole number") }
        return number
    }

    func invalid(_ name: String, _ meaning: String, _ problem: String) -> EnrollmentURIError {
        .invalidParameter(scheme: scheme, name: name, meaning: meaning, problem: problem)
    }
}
