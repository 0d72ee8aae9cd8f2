/// A parsed enrollment URI of any provider; `parse` picks the provider from the scheme.
public enum EnrollmentURI: Sendable, Equatable {
    case forgeRock(ForgeRockEnrollmentURI)
    case privacyIDEA(PrivacyIDEAEnrollmentURI)
    case plusAuth(PlusAuthEnrollmentURI)
    case hyphen(HyphenEnrollmentURI)

    public static func parse(_ uri: String) throws(EnrollmentURIError) -> EnrollmentURI {
        let parts = try EnrollmentURIParts(uri)
        switch (parts.scheme, parts.host) {
        case ("pushauth", _), ("mfauth", _):
            return .forgeRock(try ForgeRockEnrollmentURI(parts))
        case ("hyphen", _):
            return .hyphen(try HyphenEnrollmentURI(parts))
        case ("otpauth", "push"):
            return .plusAuth(try PlusAuthEnrollmentURI(parts))
        case ("otpauth", "pipush"), ("pia", _):
            return .privacyIDEA(try PrivacyIDEAEnrollmentURI(parts))
        case ("otpauth", let host):
            throw .notPushEnrollment("otpauth://\(host)")
        case (let scheme, _):
            throw .unknownScheme(scheme)
        }
    }

    public var provider: Provider {
        switch self {
        case .forgeRock: .forgerock
        case .privacyIDEA: .privacyidea
        case .plusAuth: .plusauth
        case .hyphen: .hyphen
        }
    }
}
