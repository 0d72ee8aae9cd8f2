import Foundation

/// PlusAuth's side of the exchange, small enough to live next to the agent's side: pushsim plays PlusAuth with it,
/// and tests check one side against the other.
public enum PlusAuthServer {
    public struct Refusal: Error, Equatable, CustomStringConvertible {
        public var message: String
        public init(message: String) { self.message = message }
        public var description: String { message }
    }

    /// What the server checks of an enrollment: both halves of one usable key, a push service it can send
    /// through, a device id and a push token. Returns the algorithm the account's JWTs will use.
    public static func verifyEnrollment(_ body: PlusAuthEnrollmentBody) async throws(Refusal) -> PlusAuthAlgorithm {
        let named = body.privateKey.alg ?? (body.privateKey.kty == "EC" ? "ES256" : body.privateKey.kty == "RSA" ? "RS256" : "")
        guard let algorithm = PlusAuthAlgorithm(rawValue: named) else {
            throw Refusal(message: "unsupported key: kty '\(body.privateKey.kty)', alg '\(named)' (ES256 or RS256)")
        }
        guard body.privateKey.isPrivate, !body.publicKey.isPrivate else {
            throw Refusal(message: "private_key must hold the private key and public_key only the public one")
        }
        guard body.publicKey.hasSamePublicKey(as: body.privateKey) else {
            throw Refusal(message: "public_key and private_key are not the same key pair")
        }
        do {
            _ = try await body.privateKey.keyCollection(for: algorithm)
        } catch {
            throw Refusal(message: "private_key is unusable: \(error)")
        }
        guard ["fcm", "gcm"].contains(body.credentials.service) else {
            throw Refusal(message: "credentials.service must be fcm or gcm, not '\(body.credentials.service)'")
        }
        guard !body.credentials.deviceToken.isEmpty, !body.deviceIdentifier.isEmpty else {
            throw Refusal(message: "device_identifier and credentials.device_token must not be empty")
        }
        return algorithm
    }

    /// A push's `context`, signed "with the private key provided in the enrollment request".
    public static func signContext(_ claims: PlusAuthContextClaims, privateKey: PlusAuthJWK,
                                   algorithm: PlusAuthAlgorithm) async throws -> String {
        try await PlusAuthJWS.sign(claims, key: privateKey, algorithm: algorithm)
    }

    /// The device's answer, verified with the enrolled key under the enrolled algorithm.
    public static func verifyAnswer(_ jwt: String, publicKey: PlusAuthJWK, algorithm: PlusAuthAlgorithm)
        async throws(Refusal) -> PlusAuthAnswerClaims {
        do {
            return try await PlusAuthJWS.verify(jwt, key: publicKey, algorithm: algorithm, as: PlusAuthAnswerClaims.self)
        } catch {
            throw Refusal(message: error.description)
        }
    }

    /// A context's `info` in the shape of PlusAuth's sample (protocols.md §2.3); unknown parts are "" as there.
    public static func info(application: String, user: String, ip: String, city: String, country: String,
                            browser: (name: String, version: String), os: (name: String, version: String)) -> JSONValue {
        func object(_ members: [String: String]) -> JSONValue { .object(members.mapValues { .string($0) }) }
        return .object([
            "application": .string(application), "ip": .string(ip), "user_identifier": .string(user),
            "agent": .object([
                "ua": .string("Mozilla/5.0 (\(os.name) \(os.version)) \(browser.name)/\(browser.version)"),
                "browser": object(["name": browser.name, "version": browser.version,
                                   "major": String(browser.version.prefix { $0 != "." })]),
                "cpu": object(["architecture": ""]), "device": .null,
                "engine": object(["name": "", "version": ""]),
                "os": object(["name": os.name, "version": os.version]),
            ]),
            "location": .object(["city": .string(city), "country": .string(country), "postal_code": .string(""),
                                 "coordinates": .null]),
        ])
    }
}
