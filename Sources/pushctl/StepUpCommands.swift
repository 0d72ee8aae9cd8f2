import ArgumentParser
import ControlWire
import Foundation

struct JWKS: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jwks",
        abstract: "Show the device key that signs step-up receipts (--json: the JWK Set servers verify them with).")
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await global.show({ try await $0.signingKeys() }) { keys in
            for key in keys.keys {
                Output.say("device key \(key.kid) (\(key.kty) \(key.crv), \(key.alg ?? "ES256")) signs step-up receipts")
            }
            Output.say("Give servers that accept receipts its JWK Set: pushctl --json jwks > pushagent-jwks.json (docs/stepup.md)")
        }
    }
}
