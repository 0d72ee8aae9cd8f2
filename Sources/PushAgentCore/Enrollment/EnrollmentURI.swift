/// A parsed enrollment URI of any provider; `parse` picks the provider from the scheme.
public enum EnrollmentURI: Sendable, Equatable {
    case forgeRock(ForgeRockEnrollmentURI)
    case hyphen(HyphenEnrollmentURI)

    public static func parse(_ uri: String) throws(EnrollmentURIError) -> EnrollmentURI {
        let parts = try EnrollmentURIParts(uri)
        switch (parts.scheme, parts.host) {
        case ("pushauth", _), ("mfauth", _):
            return .forgeRock(try ForgeRockEnrollmentURI(parts))
        case ("hyphen", _):
            return .hyphen(try HyphenEnrollmentURI(parts))
        case ("otpauth", "push"):
            throw .unsupported(provider: "PlusAuth", form: "otpauth://push")
        case ("otpauth", "pipush"), ("pia", _):
            throw .unsupported(provider: "privacyIDEA", form: "\(parts.scheme)://\(parts.host)")
        case ("otpauth", let host):
            throw .notPushEnrollment("otpauth://\(host)")
        case (let scheme, _):
            throw .unknownScheme(scheme)
        }
    }

    public var provider: Provider {
        switch self {
        case .forgeRock: .forgerock
        case .hyphen: .hyphen
        }
    }
}
