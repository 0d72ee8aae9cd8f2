import Foundation

/// Times in a Guardian push (protocols.md §10.3, §10.6).
enum GuardianTime {
    /// `d`: Android reads `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'` in UTC, iOS the same with any zone offset; both forms are
    /// read here, with or without the fraction, within `WireTime`'s years.
    static func date(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let date = (try? Date(trimmed, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
            ?? (try? Date(trimmed, strategy: Date.ISO8601FormatStyle()))
        guard let date, WireTime.isRepresentable(date) else { return nil }
        return date
    }

    /// The `exp` of a transaction token that is a JWT, read without verifying anything: it can only shorten how
    /// long the agent keeps the push answerable, never lengthen it. nil for an opaque token.
    static func unverifiedExpiry(ofToken token: String) -> Date? {
        guard let payload = try? CompactJWS.unverifiedPayload(of: token, as: ExpiryClaim.self),
              let exp = payload.exp else { return nil }
        return WireTime.date(epochSeconds: exp)
    }

    private struct ExpiryClaim: Decodable {
        var exp: Double?

        private enum CodingKeys: String, CodingKey { case exp }

        init(from decoder: any Decoder) throws {
            exp = try? decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(Double.self, forKey: .exp)
        }
    }
}
