import Crypto
import Foundation
import Testing
@testable import PushAgentCore

/// The device key: its exported form and its signatures, checked against OpenSSL through Python's `cryptography`.
@Suite struct HyphenDeviceKeyTests {
    /// The first small scalar whose public x or y has a leading zero byte: the case Android's unpadded
    /// `BigInteger.toString(16)` gets wrong.
    static func keyWithShortCoordinate() throws -> (scalar: Data, key: HyphenDeviceKey) {
        for k in UInt64(1)...5000 {
            let scalar = Data(repeating: 0, count: 24) + withUnsafeBytes(of: k.bigEndian) { Data($0) }
            let key = try HyphenDeviceKey(rawRepresentation: scalar)
            let raw = key.privateKey.publicKey.rawRepresentation
            if raw[raw.startIndex] == 0 || raw[raw.startIndex + 32] == 0 { return (scalar, key) }
        }
        throw PythonCryptography.Failure(description: "no scalar up to 5000 gives a short coordinate")
    }

    @Test func publicKeyIsPaddedXY() async throws {
        let (scalar, key) = try Self.keyWithShortCoordinate()
        #expect(key.publicKeyHex.count == 128)
        #expect(key.publicKeyHex.hasPrefix("00") || key.publicKeyHex.dropFirst(64).hasPrefix("00"))
        #expect(key.publicKeyHex == (try await PythonCryptography.publicKey(ofScalar: scalar)),
                "OpenSSL computes the same point, zero-padded")
        #expect(HyphenDeviceKey.publicKey(hex: key.publicKeyHex)?.rawRepresentation == key.privateKey.publicKey.rawRepresentation)
    }

    @Test func flowPayloadSignatureVerifiesInAnIndependentImplementation() async throws {
        let key = HyphenDeviceKey()
        var transaction = FlowTransaction(
            script: "transaction { prepare(signer: AuthAccount) { } }", referenceBlockId: Data(repeating: 0xAB, count: 32),
            gasLimit: HyphenTransaction.gasLimit,
            proposalKey: .init(address: FlowAddress(hex: "0x1234")!, keyIndex: 2, sequenceNumber: 7),
            payer: HyphenChain.testnet.paymaster, authorizers: [FlowAddress(hex: "0x1234")!])
        let session = HyphenCredentials.Session(accessToken: "t", refreshToken: nil, address: FlowAddress(hex: "0x1234")!,
                                                keyIndex: 2)
        try HyphenTransaction.signPayload(&transaction, key: key, session: session)
        let message = FlowSigning.payloadMessage(transaction)
        let signature = try #require(transaction.payloadSignatures.first).signature
        #expect(signature.count == 64, "raw r‖s, not DER")
        #expect(message.prefix(32) == FlowSigning.transactionDomainTag)
        #expect(FlowSigning.isValid(signature, of: message, by: key.privateKey.publicKey))
        #expect(try await PythonCryptography.verify(publicKeyHex: key.publicKeyHex, message: message, signature: signature) == "valid")

        var tampered = message
        tampered[tampered.endIndex - 1] ^= 1
        #expect(try await PythonCryptography.verify(publicKeyHex: key.publicKeyHex, message: tampered, signature: signature) == "invalid")
        #expect(!FlowSigning.isValid(signature, of: tampered, by: key.privateKey.publicKey))
    }

    @Test func challengeSignatureIsOverTheUTF8OfChallengeData() async throws {
        let key = HyphenDeviceKey()
        let challenge = HyphenChallenge(challengeData: "hyphen-challenge-\(UUID())", expiresAt: "2030-01-01T00:00:00Z")
        let request = try HyphenAPI(baseURL: "http://h", appSecret: "s").respondToChallenge(challenge, key: key)
        let body = try JSONDecoder().decode(HyphenChallengeResponseBody.self, from: request.body)
        #expect(body.challengeType == "deviceKey" && body.challengeData == challenge.challengeData)
        let signature = try #require(Hex.decode(body.deviceKey.signature))
        #expect(try await PythonCryptography.verify(publicKeyHex: key.publicKeyHex, message: Data(challenge.challengeData.utf8),
                                              signature: signature) == "valid")
    }

    @Test func malformedSignaturesAreInvalidNotErrors() {
        let key = HyphenDeviceKey()
        #expect(!FlowSigning.isValid(Data(repeating: 1, count: 10), of: Data("m".utf8), by: key.privateKey.publicKey))
        #expect(HyphenDeviceKey.publicKey(hex: "00") == nil)
        #expect(HyphenDeviceKey.publicKey(hex: String(repeating: "ff", count: 64)) == nil, "not a point on the curve")
    }
}
