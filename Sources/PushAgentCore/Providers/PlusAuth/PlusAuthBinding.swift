import Crypto
import Foundation

/// PlusAuth's `bind_sim` ("log out when the SIM card changes", protocols.md §2.4) on a machine without a SIM: the
/// account is bound to the machine's identity (`/etc/machine-id` plus an optional configured identity) recorded at
/// enrollment. Once a context asks for binding, a changed identity refuses the account's pushes and codes, for
/// good: only enrolling again (with the new identity) lifts it, as PlusAuth disables the account's `is_sim_bound`.
public struct PlusAuthBinding: Codable, Sendable, Equatable {
    /// The fingerprint recorded at enrollment; nil when the machine had no identity to record.
    public var enrolledIdentity: String?
    /// The last verified context asked for binding (the tenant's setting), so codes are bound too.
    public var required: Bool
    /// When a changed identity was noticed while bound.
    public var brokenAt: Date?

    public init(enrolledIdentity: String?, required: Bool = false, brokenAt: Date? = nil) {
        self.enrolledIdentity = enrolledIdentity
        self.required = required
        self.brokenAt = brokenAt
    }

    /// What the binding is checked for.
    public enum Use: Sendable, Equatable {
        /// A verified context, and its `settings.bind_sim`.
        case push(bindingRequested: Bool)
        /// An offline TOTP code.
        case code
    }

    /// Bound to the machine it was enrolled on: the tenant asked for binding, or a change was noticed already.
    public var bindsToMachine: Bool { required || brokenAt != nil }

    /// The binding of an account restored on another machine: broken from `now` when it binds. One that does not
    /// bind yet is kept: its recorded identity is the old machine's, so a later push asking for binding breaks it.
    public func restoredElsewhere(at now: Date) -> PlusAuthBinding {
        guard bindsToMachine else { return self }
        var restored = self
        restored.brokenAt = brokenAt ?? now
        return restored
    }

    public struct Admission: Sendable, Equatable {
        /// The binding to keep (it changes when a context changes `required` or a change is noticed).
        public var binding: PlusAuthBinding
        /// Why the use is refused; nil when allowed.
        public var refusal: String?
    }

    public func admit(_ use: Use, currentIdentity: String?, at now: Date) -> Admission {
        var next = self
        if case .push(let requested) = use { next.required = requested }
        if brokenAt == nil, next.required, enrolledIdentity == nil || currentIdentity != enrolledIdentity {
            next.brokenAt = now
        }
        guard let broken = next.brokenAt else { return Admission(binding: next, refusal: nil) }
        let what = enrolledIdentity == nil
            ? "but no machine identity was recorded when it was enrolled (no machine id and no binding_identity)"
            : "and this machine's identity has changed since it was enrolled (noticed \(broken.formatted(.iso8601)))"
        return Admission(binding: next, refusal: "the account is bound to the machine it was enrolled on "
            + "(PlusAuth bind_sim), \(what)")
    }

    /// The identity recorded and compared: SHA-256 (hex) of the machine id and the configured identity, so the
    /// machine id itself (confidential, machine-id(5)) is never stored. Nil when neither is available.
    public static func fingerprint(machineID: String?, configuredIdentity: String?) -> String? {
        let parts = [machineID, configuredIdentity].map { $0?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "" }
        guard parts.contains(where: { !$0.isEmpty }) else { return nil }
        let input = Data((["pushagent-binding-v1"] + parts).joined(separator: "\u{0}").utf8)
        return SHA256.hash(data: input).hex
    }
}
