import JWTKit

/// Lets any Codable claims type travel through jwt-kit, which wants a `JWTPayload`.
struct ClaimsPayload<Claims: Codable & Sendable>: JWTPayload {
    var claims: Claims

    init(claims: Claims) { self.claims = claims }
    init(from decoder: any Decoder) throws { claims = try Claims(from: decoder) }
    func encode(to encoder: any Encoder) throws { try claims.encode(to: encoder) }
    // Expiry and the like are the caller's rules, checked after decoding.
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
