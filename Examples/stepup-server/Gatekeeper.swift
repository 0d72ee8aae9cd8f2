import Foundation
import Hummingbird
import PushAgentCore

/// Decides each request: the credential it carries is good, or it gets the challenge.
struct Gatekeeper: Sendable {
    enum Credential: Sendable {
        case totp(TOTPParameters)
        case receipt(JWKSet)
    }

    let kind: ChallengeKind
    let credential: Credential
    /// What receipts must answer in the header-pair dialect; one per server run keeps the example short (a real
    /// server issues one per operation it protects).
    let businessNumber = "BN-\(UUID().uuidString.prefix(8))"

    func respond(to request: Request) async -> Response {
        let what = "\(request.method) \(request.uri.path)"
        guard let presented = presented(in: request) else {
            Self.say("challenged \(what) (\(kind.rawValue))")
            return challenge()
        }
        do {
            try await check(presented, audience: "http://" + (request.head.authority ?? "").lowercased())
            Self.say("accepted the \(kind.wantsCode ? "TOTP code" : "step-up receipt") for \(what)")
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "hello from the protected resource\n")))
        } catch {
            Self.say("refused the credential for \(what): \(error)")
            return challenge()
        }
    }

    private func presented(in request: Request) -> String? {
        let header: String = switch kind {
        case .githubOTP: "X-GitHub-OTP"
        case .npmOTP: "npm-otp"
        case .headerPair: "X-Risk-Challenge-Token"
        case .rfc9470: "Authorization"
        }
        guard var value = request.headers.first(where: { $0.name.canonicalName == header.lowercased() })?.value else {
            return nil
        }
        if kind == .rfc9470 {
            guard value.hasPrefix("Bearer ") else { return nil }
            value.removeFirst("Bearer ".count)
        }
        return value
    }

    private func check(_ presented: String, audience: String) async throws {
        switch credential {
        case .totp(let parameters):
            // The current code, or the previous one for a little clock skew (RFC 6238 §5.2).
            let now = Date()
            let accepted = [now, now.addingTimeInterval(-TimeInterval(parameters.period))].map { TOTP.code(parameters, at: $0).code }
            guard accepted.contains(where: { constantTimeEqual($0, presented) }) else { throw Refusal("not the account's current code") }
        case .receipt(let keys):
            let claims = try await StepUpReceipt.verify(
                presented, keys: keys, businessNumber: kind == .headerPair ? businessNumber : nil, audience: audience)
            Self.say("receipt \(claims.approvalId) verified (approved at \(claims.authTime))")
        }
    }

    private func challenge() -> Response {
        switch kind {
        case .githubOTP:
            return Self.json(.unauthorized, ["X-GitHub-OTP": "required; app"],
                             #"{"message":"Must specify two-factor authentication OTP code."}"#)
        case .npmOTP:
            return Self.json(.unauthorized, ["WWW-Authenticate": "OTP"], #"{"error":"This operation requires a one-time password."}"#)
        case .rfc9470:
            return Self.json(.unauthorized, ["WWW-Authenticate": #"Bearer error="insufficient_user_authentication", error_description="A step-up approval is required", acr_values="pushagent:stepup""#],
                             #"{"error":"insufficient_user_authentication"}"#)
        case .headerPair:
            return Self.json(.forbidden, ["X-Risk-Challenge-Enable-Flow": "true", "X-Risk-Challenge-Biz-No": businessNumber],
                             #"{"error":"risk challenge required"}"#)
        }
    }

    private static func json(_ status: HTTPResponse.Status, _ headers: [String: String], _ body: String) -> Response {
        var fields: HTTPFields = [.contentType: "application/json"]
        for (name, value) in headers { fields.append(.init(name: .init(name)!, value: value)) }
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    private func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    static func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
}

struct Refusal: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
