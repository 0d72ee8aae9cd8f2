import Foundation

/// The parts of Google's Key URI format (`otpauth://`) that push enrollment URIs reuse: the label and the OATH
/// parameters.
extension EnrollmentParameters {
    /// The label splits at the first `:`; without one it names both issuer and account; a non-empty `issuer`
    /// parameter wins; an empty account is "Untitled" (Android's and Google Authenticator's rules).
    func identity(label: String, issuer override: String?) throws(EnrollmentURIError) -> (issuer: String, account: String) {
        let split = EnrollmentURIParts.splitAtFirstColon(label)
        var issuer = split?.before ?? label
        let account = split?.after ?? label
        if let override { issuer = override }
        guard !issuer.isEmpty || !account.isEmpty else {
            throw .badLabel(scheme: scheme, problem: "names neither an issuer nor an account")
        }
        return (issuer, account.isEmpty ? "Untitled" : account)
    }

    /// `secret`: the OATH key in base32, required.
    func oathSecret() throws(EnrollmentURIError) -> Data {
        let text = try required("secret", "OATH secret")
        guard let secret = Base32.decode(text), !secret.isEmpty else {
            throw invalid("secret", "OATH secret", "is not valid base32")
        }
        return secret
    }

    /// `algorithm` (default SHA1), `digits` (default 6) and `period` (default 30), each checked.
    func totp(secret: Data) throws(EnrollmentURIError) -> TOTPParameters {
        let algorithmName = optional("algorithm")?.lowercased() ?? "sha1"
        guard let algorithm = OTPAlgorithm(rawValue: algorithmName) else {
            throw invalid("algorithm", "OTP algorithm", "must be SHA1, SHA256 or SHA512")
        }
        let digits = try integer("digits", "code length", default: 6)
        let period = try integer("period", "code period", default: 30)
        do {
            return try TOTPParameters(secret: secret, algorithm: algorithm, digits: digits, period: period)
        } catch {
            switch error {
            case .digits: throw invalid("digits", "code length", "must be 6, 7 or 8")
            case .period: throw invalid("period", "code period", "must be 1 to 86400 seconds")
            case .emptySecret: throw invalid("secret", "OATH secret", "is empty")
            }
        }
    }
}
