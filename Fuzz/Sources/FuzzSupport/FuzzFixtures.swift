import CryptoExtras
import Crypto
import Foundation
@testable import PushAgentCore

/// Keys and an account owned by the fuzz targets. With the keys they sign the fuzzer's bytes and reach the code
/// behind each signature check: a validly signed push with hostile contents is what a compromised or buggy server sends.
public enum FuzzFixtures {
    /// ForgeRock's HS256 shared secret (32 bytes, the minimum the agent accepts).
    public static let forgeRockSecret = Data((0..<32).map { UInt8($0) })

    /// A PlusAuth account's ES256 key, from a fixed scalar so runs are reproducible.
    public static let plusAuthKey = try! P256.Signing.PrivateKey(rawRepresentation: Data((1...32).map { UInt8($0) }))

    /// The public half as the account stores it.
    public static let plusAuthJWK: PlusAuthJWK = {
        let point = plusAuthKey.publicKey.x963Representation.dropFirst()  // 0x04 || x || y
        return PlusAuthJWK(kty: "EC", crv: "P-256", x: Data(point.prefix(32)).base64URLUnpadded,
                           y: Data(point.suffix(32)).base64URLUnpadded, alg: "ES256")
    }()

    /// The enrolled PlusAuth accounts a context is checked against: one, with the key above.
    public static let plusAuthCandidates = [
        PlusAuthPush.Candidate(accountId: account(.plusauth).id, key: plusAuthJWK, algorithm: .es256),
    ]

    /// A privacyIDEA server's key. Generated per process: no 2048-bit key is kept in the tree, and since the
    /// targets sign every input themselves, a crash input reproduces under any key.
    public static let privacyIDEAKey = try! _RSA.Signing.PrivateKey(keySize: .bits2048)

    public static let privacyIDEAServerKey = try! PrivacyIDEAServerKey(der: privacyIDEAKey.publicKey.derRepresentation)

    /// The device key that signs step-up receipts.
    public static let stepUpKey = try! DeviceSigningKey(rawRepresentation: Data((33...64).map { UInt8($0) }))

    /// A Guardian enrollment, for building answers' claims (which need no key: nothing is signed there).
    public static let guardianCredentials = GuardianCredentials(
        enrollmentId: "dev_fuzz", deviceIdentifier: "pushagent_fuzz", deviceToken: "token", userId: "auth0|fuzz",
        apiBaseURL: "https://fuzz.guardian.auth0.com", privateKeyDER: Data(), totp: nil)

    /// The account a push is for, as the store would list it.
    public static func account(_ provider: Provider) -> Account {
        Account(id: "acct_fuzz", provider: provider, issuer: "Fuzz", name: "fuzz@example.com",
                createdAt: Date(timeIntervalSince1970: 1_700_000_000), hasTOTP: false)
    }
}
