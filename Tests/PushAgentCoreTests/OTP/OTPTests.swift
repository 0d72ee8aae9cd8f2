import Foundation
import Testing
import PushAgentCore

@Suite struct OTPTests {
    static let sha1Seed = Data("12345678901234567890".utf8)
    static let sha256Seed = Data("12345678901234567890123456789012".utf8)
    static let sha512Seed = Data("1234567890123456789012345678901234567890123456789012345678901234".utf8)

    // RFC 4226 Appendix D: HOTP values for counters 0...9.
    @Test func rfc4226() {
        let expected = ["755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489"]
        for (counter, code) in expected.enumerated() {
            #expect(HOTP.code(secret: Self.sha1Seed, counter: UInt64(counter), digits: 6, algorithm: .sha1) == code)
        }
    }

    // RFC 6238 Appendix B: 8-digit TOTP, 30 s period, one seed per algorithm.
    @Test(arguments: [
        (59, "94287082", "46119246", "90693936"),
        (1_111_111_109, "07081804", "68084774", "25091201"),
        (1_111_111_111, "14050471", "67062674", "99943326"),
        (1_234_567_890, "89005924", "91819424", "93441116"),
        (2_000_000_000, "69279037", "90698825", "38618901"),
        (20_000_000_000, "65353130", "77737706", "47863826"),
    ] as [(Int64, String, String, String)])
    func rfc6238(_ time: Int64, _ sha1: String, _ sha256: String, _ sha512: String) throws {
        let date = Date(timeIntervalSince1970: TimeInterval(time))
        for (seed, algorithm, code) in [(Self.sha1Seed, OTPAlgorithm.sha1, sha1), (Self.sha256Seed, .sha256, sha256),
                                        (Self.sha512Seed, .sha512, sha512)] {
            let parameters = try TOTPParameters(secret: seed, algorithm: algorithm, digits: 8, period: 30)
            #expect(TOTP.code(parameters, at: date).code == code)
        }
    }

    @Test func secondsLeftCountsDownWithinThePeriod() throws {
        let parameters = try TOTPParameters(secret: Self.sha1Seed)
        #expect(TOTP.code(parameters, at: Date(timeIntervalSince1970: 59)).secondsLeft == 1)
        #expect(TOTP.code(parameters, at: Date(timeIntervalSince1970: 60)).secondsLeft == 30)
        #expect(TOTP.code(parameters, at: Date(timeIntervalSince1970: 60)).code.count == 6)
    }

    @Test func parametersAreValidated() {
        #expect(throws: TOTPParameters.Invalid.digits(9)) { try TOTPParameters(secret: Self.sha1Seed, digits: 9) }
        #expect(throws: TOTPParameters.Invalid.period(0)) { try TOTPParameters(secret: Self.sha1Seed, period: 0) }
        #expect(throws: TOTPParameters.Invalid.emptySecret) { try TOTPParameters(secret: Data()) }
    }

    @Test func storedParametersAreValidatedToo() throws {
        let json = #"{"secret":"MTIz","algorithm":"sha1","digits":12,"period":30}"#
        #expect(throws: (any Error).self) { try JSONDecoder().decode(TOTPParameters.self, from: Data(json.utf8)) }
        let good = try TOTPParameters(secret: Self.sha1Seed, algorithm: .sha256, digits: 7, period: 60)
        #expect(try JSONDecoder().decode(TOTPParameters.self, from: JSONEncoder().encode(good)) == good)
    }
}
