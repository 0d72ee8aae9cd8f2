import ClusterHarness
import Foundation
import Testing
import PushAgentCore

/// TOTP against OATH Toolkit's `oathtool` (installed by the Makefile's APT_PACKAGES), over the parameter space
/// PlusAuth URIs may use: SHA1/SHA256/SHA512, 6–8 digits, any period.
@Suite struct OathtoolTests {
    /// `oathtool --totp=ALG --digits=N --time-step-size=Ps -N @TIME HEXKEY`.
    static func oathtool(_ parameters: TOTPParameters, at time: Int64) async throws -> String {
        let result = try await CommandResult.run("/usr/bin/env", [
            "oathtool", "--totp=\(parameters.algorithm.rawValue)", "--digits=\(parameters.digits)",
            "--time-step-size=\(parameters.period)s", "-N", "@\(time)", parameters.secret.map { String(format: "%02x", $0) }.joined(),
        ])
        guard result.status == 0 else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "oathtool failed (is it installed? `make deps`)"])
        }
        let text = result.stdout
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(arguments: OTPAlgorithm.allCases)
    func matchesOathtool(_ algorithm: OTPAlgorithm) async throws {
        var generator = SystemRandomNumberGenerator()
        for (digits, period, secretLength) in [(6, 30, 20), (7, 1, 10), (8, 45, 32), (6, 60, 64), (8, 86_400, 16)] {
            let secret = Data((0..<secretLength).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let parameters = try TOTPParameters(secret: secret, algorithm: algorithm, digits: digits, period: period)
            for time in [0, 59, 1_111_111_109, Int64(Date().timeIntervalSince1970), Int64.random(in: 0...4_000_000_000, using: &generator)] {
                let ours = TOTP.code(parameters, at: Date(timeIntervalSince1970: TimeInterval(time))).code
                #expect(ours == (try await Self.oathtool(parameters, at: time)),
                        "\(algorithm) \(digits) digits, \(period) s, t=\(time)")
            }
        }
    }
}
