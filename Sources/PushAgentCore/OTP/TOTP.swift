import Foundation

/// What an account needs to show TOTP codes. Validated on creation so `TOTP.code` cannot fail.
public struct TOTPParameters: Codable, Sendable, Equatable {
    public let secret: Data
    public let algorithm: OTPAlgorithm
    public let digits: Int
    public let period: Int

    public static let allowedDigits = 6...8
    /// A day; longer periods are not codes anyone could use and are more likely a typo.
    public static let allowedPeriods = 1...86_400

    public enum Invalid: Error, Equatable, CustomStringConvertible {
        case emptySecret
        case digits(Int)
        case period(Int)

        public var description: String {
            switch self {
            case .emptySecret: "the TOTP secret is empty"
            case .digits(let n): "TOTP codes must have 6 to 8 digits, not \(n)"
            case .period(let n): "the TOTP period must be 1 to 86400 seconds, not \(n)"
            }
        }
    }

    public init(secret: Data, algorithm: OTPAlgorithm = .sha1, digits: Int = 6, period: Int = 30) throws(Invalid) {
        guard !secret.isEmpty else { throw .emptySecret }
        guard Self.allowedDigits.contains(digits) else { throw .digits(digits) }
        guard Self.allowedPeriods.contains(period) else { throw .period(period) }
        self.secret = secret
        self.algorithm = algorithm
        self.digits = digits
        self.period = period
    }

    private enum CodingKeys: String, CodingKey { case secret, algorithm, digits, period }

    // Stored values go through the same checks as new ones.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(secret: c.decode(Data.self, forKey: .secret), algorithm: c.decode(OTPAlgorithm.self, forKey: .algorithm),
                      digits: c.decode(Int.self, forKey: .digits), period: c.decode(Int.self, forKey: .period))
    }
}

/// RFC 6238 TOTP.
public enum TOTP {
    public static func code(_ parameters: TOTPParameters, at date: Date) -> (code: String, secondsLeft: Int) {
        let seconds = max(0, Int64(date.timeIntervalSince1970.rounded(.down)))
        let period = Int64(parameters.period)
        let code = HOTP.code(secret: parameters.secret, counter: UInt64(seconds / period),
                             digits: parameters.digits, algorithm: parameters.algorithm)
        return (code, Int(period - seconds % period))
    }
}
