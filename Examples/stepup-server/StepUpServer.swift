import ArgumentParser
import Foundation
import Hummingbird
import PushAgentCore

/// A server with one protected resource, `GET /protected`, that answers only requests carrying a step-up credential:
/// the current TOTP code of an account (code triggers) or a pushagent step-up receipt it verifies (receipt triggers).
/// Without one it answers the trigger's challenge. It prints one line per decision.
@main
struct StepUpServer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stepup-server",
        abstract: "A protected endpoint that challenges for step-up MFA (the server side of docs/stepup.md).")

    @Option(help: "HOST:PORT to listen on (port 0 picks one; the line 'stepup-server listening on URL' tells).")
    var listen = "127.0.0.1:0"
    @Option(help: "The challenge to send: \(ChallengeKind.allCases.map(\.rawValue).joined(separator: ", ")).")
    var trigger: ChallengeKind = .githubOTP
    @Option(help: "Base32 TOTP secret of the account whose codes are accepted (code triggers).") var totpSecret: String?
    @Option(help: "TOTP code length.") var totpDigits = 6
    @Option(help: "TOTP period in seconds.") var totpPeriod = 30
    @Option(help: "TOTP hash: sha1, sha256 or sha512.") var totpAlgorithm = "sha1"
    @Option(help: "JWK Set file with the device keys whose receipts are accepted (`pushctl --json jwks`; receipt triggers).")
    var jwks: String?

    func validate() throws {
        guard listenAddress != nil else { throw ValidationError("--listen: expected HOST:PORT, got '\(listen)'") }
        if trigger.wantsCode {
            guard let secret = totpSecret, Base32.decode(secret)?.isEmpty == false else {
                throw ValidationError("--totp-secret: a base32 secret is needed for the \(trigger.rawValue) trigger")
            }
            guard OTPAlgorithm(rawValue: totpAlgorithm.lowercased()) != nil else {
                throw ValidationError("--totp-algorithm: sha1, sha256 or sha512, not '\(totpAlgorithm)'")
            }
        } else if jwks == nil {
            throw ValidationError("--jwks: a JWK Set file is needed to verify receipts for the \(trigger.rawValue) trigger")
        }
    }

    func run() async throws {
        let credential: Gatekeeper.Credential
        if trigger.wantsCode {
            credential = .totp(try TOTPParameters(
                secret: Base32.decode(totpSecret ?? "") ?? Data(), algorithm: OTPAlgorithm(rawValue: totpAlgorithm.lowercased()) ?? .sha1,
                digits: totpDigits, period: totpPeriod))
        } else {
            let file = try Data(contentsOf: URL(fileURLWithPath: jwks ?? ""))
            do { credential = .receipt(try JSONDecoder().decode(JWKSet.self, from: file)) }
            catch { throw ValidationError("--jwks: \(jwks ?? "") is not a JWK Set: \(error)") }
        }
        let gatekeeper = Gatekeeper(kind: trigger, credential: credential)
        let router = Router()
        router.get("/protected") { request, _ in await gatekeeper.respond(to: request) }
        let (host, port) = listenAddress ?? ("127.0.0.1", 0)
        let app = Application(
            router: router, configuration: .init(address: .hostname(host, port: port), serverName: "stepup-server"),
            onServerRunning: { channel in
                Gatekeeper.say("stepup-server listening on http://\(host):\(channel.localAddress?.port ?? port)")
            })
        try await app.runService()
    }

    private var listenAddress: (String, Int)? {
        guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]),
              (0...65_535).contains(port), colon > listen.startIndex else { return nil }
        return (String(listen[..<colon]), port)
    }
}

enum ChallengeKind: String, ExpressibleByArgument, CaseIterable, Sendable {
    case githubOTP = "github-otp", npmOTP = "npm-otp", rfc9470, headerPair = "header-pair"

    var wantsCode: Bool { self == .githubOTP || self == .npmOTP }
}
