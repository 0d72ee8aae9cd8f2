import Foundation

/// Reading a compact JWS's unprotected parts. jwt-kit keeps its header parser internal, and the router and
/// handlers need the header's `alg` and, before verification, which account a token claims to be for.
enum CompactJWS {
    /// The header's `alg`, nil when it names none; throws for anything that is not three base64url segments with a
    /// JSON header.
    static func algorithm(of token: String) throws(JWSError) -> String? {
        guard let header = decode(try segments(of: token)[0], as: AlgorithmHeader.self) else {
            throw .malformed("the JWT header is not base64url JSON")
        }
        return header.alg
    }

    /// The header's `alg` alone: every push's signature check pins it, and decoding the whole header as generic JSON
    /// cost as much as the check itself.
    private struct AlgorithmHeader: Decodable {
        var alg: String?

        private enum CodingKeys: String, CodingKey { case alg }

        init(from decoder: any Decoder) throws {
            let header = try decoder.container(keyedBy: CodingKeys.self)
            // Not a string names no algorithm, as a missing one does.
            alg = try? header.decodeIfPresent(String.self, forKey: .alg)
        }
    }

    /// The protected header as JSON, read before verification to pick the key and pin `alg`/`typ`.
    static func header(of token: String) throws(JWSError) -> [String: JSONValue] {
        let segments = try segments(of: token)
        guard let header = decode(segments[0], as: [String: JSONValue].self) else {
            throw .malformed("the JWT header is not base64url JSON")
        }
        return header
    }

    /// Pins the algorithm: a token naming any other `alg` (or none) is refused before its signature is looked at,
    /// so a forged header can never pick a weaker check.
    static func requireAlgorithm(_ expected: String, of token: String) throws(JWSError) {
        let algorithm = try algorithm(of: token)
        guard algorithm == expected else { throw .algorithmNotAllowed(algorithm ?? "none given", allowed: expected) }
    }

    /// The payload's claims that `Claims` names, NOT verified: only for routing (which key to verify with), never to
    /// trust a value.
    static func unverifiedPayload<Claims: Decodable>(of token: String, as: Claims.Type) throws(JWSError) -> Claims {
        guard let claims = decode(try segments(of: token)[1], as: Claims.self) else {
            throw .malformed("the JWT payload is not a base64url JSON object")
        }
        return claims
    }

    /// Split at each "." byte, not `Character`: a JWT is ASCII, and splitting by characters was a fortieth of the
    /// agent's CPU a push. A "." carrying a combining mark now splits too; no segment with one is base64 either way.
    private static func segments(of token: String) throws(JWSError) -> [Substring] {
        let segments = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).map(Substring.init)
        guard segments.count == 3, !segments[0].isEmpty, !segments[1].isEmpty else {
            throw .malformed("not a compact JWT (expected three dot-separated segments)")
        }
        return segments
    }

    private static func decode<Value: Decodable>(_ segment: Substring, as: Value.Type) -> Value? {
        LenientBase64.decode(segment).flatMap { try? JSONDecoder().decode(Value.self, from: $0) }
    }
}

/// Why a JWS was refused.
enum JWSError: Error, Equatable, CustomStringConvertible {
    case malformed(String)
    case algorithmNotAllowed(String, allowed: String)
    case badSignature
    case keyTooShort(bytes: Int)

    var description: String {
        switch self {
        case .malformed(let why): why
        case .algorithmNotAllowed(let alg, let allowed): "JWT algorithm '\(alg)' is not allowed (only \(allowed))"
        case .badSignature: "the JWT signature does not verify"
        case .keyTooShort(let bytes): "the shared secret must be at least 256 bits (it has \(bytes * 8))"
        }
    }
}
