import Crypto
import Foundation

/// Secrets, keys and access tokens are stored and compared only as SHA-256 digests, so the database never holds
/// a usable credential.
func secretDigest(_ secret: String) -> [UInt8] {
    Array(SHA256.hash(data: Data(secret.utf8)))
}

/// Compares without an early exit, so the time taken does not reveal how much of a guess was right.
func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
    guard lhs.count == rhs.count else { return false }
    var difference: UInt8 = 0
    for i in lhs.indices { difference |= lhs[i] ^ rhs[i] }
    return difference == 0
}

/// Secrets and keys are compared as digests: equal-length inputs to `constantTimeEquals`, so not even the
/// length of the stored value leaks.
func secretMatches(_ presented: String, digest: [UInt8]) -> Bool {
    constantTimeEquals(secretDigest(presented), digest)
}
