import ClusterHarness
import Foundation

/// An independent ECDSA implementation to check ours against: Python's `cryptography` (OpenSSL), from Debian's
/// python3-cryptography (the Makefile installs it), run as a separate process on the same bytes.
enum PythonCryptography {
    static let interpreter = "/usr/bin/python3"

    private static let verifier = """
    import sys
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
    from cryptography.exceptions import InvalidSignature
    key, message, signature = (bytes.fromhex(a) for a in sys.argv[1:4])
    public = ec.EllipticCurvePublicNumbers(int.from_bytes(key[:32], "big"), int.from_bytes(key[32:], "big"),
                                           ec.SECP256R1()).public_key()
    der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
    try:
        public.verify(der, message, ec.ECDSA(hashes.SHA256()))
        print("valid")
    except InvalidSignature:
        print("invalid")
    """

    private static let publicKeyOf = """
    import sys
    from cryptography.hazmat.primitives.asymmetric import ec
    numbers = ec.derive_private_key(int(sys.argv[1], 16), ec.SECP256R1()).public_key().public_numbers()
    print(numbers.x.to_bytes(32, "big").hex() + numbers.y.to_bytes(32, "big").hex())
    """

    /// "valid" or "invalid" for a raw r‖s P-256/SHA-256 signature by the x‖y public key.
    static func verify(publicKeyHex: String, message: Data, signature: Data) async throws -> String {
        try await run(verifier, [publicKeyHex, message.hex, signature.hex])
    }

    /// x‖y of the public key of a private scalar, computed by OpenSSL.
    static func publicKey(ofScalar scalar: Data) async throws -> String {
        try await run(publicKeyOf, [scalar.hex])
    }

    private static func run(_ script: String, _ arguments: [String]) async throws -> String {
        let result = try await CommandResult.run(interpreter, ["-c", script] + arguments)
        guard result.status == 0 else {
            throw Failure(description: "\(interpreter) failed (is python3-cryptography installed? `make deps`): \(result.stderr)")
        }
        let text = result.stdout
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    struct Failure: Error, CustomStringConvertible { var description: String }
}
