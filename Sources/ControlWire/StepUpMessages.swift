import Foundation
import PushAgentCore

// Local step-ups (docs/stepup.md): a program on this machine asks the user, through pushagentd, to confirm an
// MFA challenge its server sent; the answer is an account's TOTP code or a receipt signed by the device key.

/// What answers an approved step-up.
public enum StepUpAnswer: String, Codable, Sendable {
    /// The current TOTP code of the account the caller named (OTP-style challenges: GitHub, npm).
    case totp
    /// A compact JWS by the device key, bound to the challenge (`GET /v1/jwks` verifies it).
    case receipt
}

/// `POST /v1/stepups`.
public struct StepUpRequest: Codable, Sendable, Equatable {
    public var answer: StepUpAnswer
    /// The account whose code answers (`totp`): id or unique prefix.
    public var account: String?
    public var businessNumber: String?
    /// Why the server asks, shown to the user.
    public var reason: String?
    /// The server asking (its origin), shown to the user and put into the receipt's `aud`.
    public var audience: String?
    /// How long the user has to answer; default 120, 10 to 600.
    public var ttlSeconds: Int?

    public init(answer: StepUpAnswer, account: String? = nil, businessNumber: String? = nil, reason: String? = nil,
                audience: String? = nil, ttlSeconds: Int? = nil) {
        self.answer = answer
        self.account = account
        self.businessNumber = businessNumber
        self.reason = reason
        self.audience = audience
        self.ttlSeconds = ttlSeconds
    }

    enum CodingKeys: String, CodingKey {
        case answer, account, businessNumber = "business_number", reason, audience, ttlSeconds = "ttl_seconds"
    }
}

/// The program that asked, as the daemon read it from SO_PEERCRED and /proc (not as the program said).
public struct StepUpCaller: Codable, Sendable, Equatable {
    public var uid: UInt32
    public var pid: Int32
    /// The executable's file name (from /proc/PID/exe), else the process name (/proc/PID/comm, which it may set itself).
    public var program: String
    /// The executable's path when the daemon may read it (same user, or root).
    public var executable: String?

    public init(uid: UInt32, pid: Int32, program: String, executable: String?) {
        self.uid = uid
        self.pid = pid
        self.program = program
        self.executable = executable
    }
}

/// A step-up's request as the daemon recorded it; also the approval's `context.raw`.
public struct StepUpDetails: Codable, Sendable, Equatable {
    public var caller: StepUpCaller
    public var answer: StepUpAnswer
    public var accountId: String?
    public var businessNumber: String?
    public var reason: String?
    public var audience: String?

    public init(caller: StepUpCaller, answer: StepUpAnswer, accountId: String?, businessNumber: String?,
                reason: String?, audience: String?) {
        self.caller = caller
        self.answer = answer
        self.accountId = accountId
        self.businessNumber = businessNumber
        self.reason = reason
        self.audience = audience
    }

    enum CodingKeys: String, CodingKey {
        case caller, answer, accountId = "account_id", businessNumber = "business_number", reason, audience
    }
}

/// `POST /v1/stepups` and `GET /v1/stepups/{id}`: the approval (kind `stepup`, provider `local`), what was asked,
/// and, for the caller that asked once the user approved, the answer.
public struct StepUp: Codable, Sendable {
    public var approval: Approval
    public var details: StepUpDetails
    public var code: String?
    public var receipt: String?
    /// Until when `code`/`receipt` are handed out (the receipt's `exp`).
    public var answerExpiresAt: Date?

    /// The answer (`code` or `receipt`, and `answerExpiresAt`) is filled in by the daemon once the user approved.
    public init(approval: Approval, details: StepUpDetails) {
        self.approval = approval
        self.details = details
    }

    enum CodingKeys: String, CodingKey {
        case approval, details, code, receipt, answerExpiresAt = "answer_expires_at"
    }
}
