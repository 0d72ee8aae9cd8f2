/// Why an enrollment URI (usually read from a QR code) was refused. Messages name the scheme, the parameter and
/// what is wrong with it, because the person reading them is holding the QR code and wants to know what to fix.
public enum EnrollmentURIError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case tooLong(bytes: Int)
    case notAURI
    case unknownScheme(String)
    case wrongProvider(provider: String, scheme: String, expected: String)
    case notPushEnrollment(String)
    case badHost(scheme: String, host: String, expected: String)
    case badLabel(scheme: String, problem: String)
    case brokenPercentEncoding(scheme: String, part: String)
    case duplicateParameter(scheme: String, name: String)
    case missingParameter(scheme: String, name: String, meaning: String)
    case invalidParameter(scheme: String, name: String, meaning: String, problem: String)

    public var description: String {
        switch self {
        case .empty:
            "the enrollment URI is empty"
        case .tooLong(let bytes):
            "the enrollment URI is \(bytes) bytes long; at most \(EnrollmentURIParts.maximumBytes) are accepted"
        case .notAURI:
            "this is not an enrollment URI (expected something like pushauth://push/Issuer:account?…)"
        case .unknownScheme(let scheme):
            "unknown enrollment URI scheme '\(Self.excerpt(scheme))://' (known: \(ProviderRegistry.enrollmentLabels.joined(separator: ", ")))"
        case .wrongProvider(let provider, let scheme, let expected):
            "'\(scheme)://' is not a \(provider) enrollment URI (expected \(expected))"
        case .notPushEnrollment(let form):
            "\(form) is a one-time-password URI, not a push enrollment"
        case .badHost(let scheme, let host, let expected):
            "\(scheme) URI: the type must be \(expected), not '\(Self.excerpt(host))'"
        case .badLabel(let scheme, let problem):
            "\(scheme) URI: the label (issuer:account) \(problem)"
        case .brokenPercentEncoding(let scheme, let part):
            "\(scheme) URI: \(part) has broken percent-encoding"
        case .duplicateParameter(let scheme, let name):
            "\(scheme) URI: parameter '\(name)' appears more than once"
        case .missingParameter(let scheme, let name, let meaning):
            "\(scheme) URI: parameter '\(name)' (\(meaning)) is missing"
        case .invalidParameter(let scheme, let name, let meaning, let problem):
            "\(scheme) URI: parameter '\(name)' (\(meaning)) \(problem)"
        }
    }

    /// Values echoed in messages come from untrusted input: keep them short.
    static func excerpt(_ text: some StringProtocol) -> String {
        text.count <= 64 ? String(text) : String(text.prefix(61)) + "..."
    }
}
