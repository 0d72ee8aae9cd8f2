import Crypto
import Foundation
import PushAgentCore

/// Compact JWS over arbitrary payload bytes, assembled here rather than by jwt-kit so the payload need not be
/// valid JSON: what the verifier does with a signed payload it cannot read is part of what is tested.
public enum SignedToken {
    public static func hs256(payload: Data, secret: Data) -> String {
        sign(header: #"{"alg":"HS256","typ":"JWT"}"#, payload: payload) { input in
            Data(HMAC<SHA256>.authenticationCode(for: input, using: SymmetricKey(data: secret)))
        }
    }

    public static func es256(payload: Data, key: P256.Signing.PrivateKey,
                             header: String = #"{"alg":"ES256","typ":"JWT"}"#) -> String {
        sign(header: header, payload: payload) { input in
            try! key.signature(for: input).rawRepresentation
        }
    }

    private static func sign(header: String, payload: Data, signature: (Data) -> Data) -> String {
        let input = Data(header.utf8).base64URLUnpadded + "." + payload.base64URLUnpadded
        return input + "." + signature(Data(input.utf8)).base64URLUnpadded
    }
}
