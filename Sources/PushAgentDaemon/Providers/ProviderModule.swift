import Foundation
import Hummingbird
import Logging
import PushAgentCore
import PushAgentStore

/// One provider's daemon side, declared in one place: its Core description (identity, enrollment URIs, push claim,
/// capabilities), how it verifies its pushes, enrollment, its answer path, the push sources and control routes of its
/// own, and its settings (a section of `ProviderSettings`, read live so a reload applies). The daemon composes them in
/// `ProviderModules` and names none elsewhere: adding a dialect adds one folder and a line to that list.
protocol ProviderModule: Sendable {
    /// What its enrollment URIs parse as (`ProviderEnrollmentURI`, in its Core folder).
    associatedtype EnrollmentDetails: ProviderEnrollmentURI

    var descriptor: ProviderDescription { get }

    /// What it is built from; a module with nothing of its own keeps only this, and Swift writes the init.
    var context: ProviderContext { get }

    init(context: ProviderContext)

    /// Its section of the settings, if it has one.
    static var settingsSection: (any ConfigSection.Type)? { get }

    /// What its stored credentials JSON decodes as: a restored account's must, or it is refused.
    var credentialsType: any Decodable.Type { get }

    /// Where this provider's pushes come from besides the relay (privacyIDEA's servers, polled).
    var pushSources: [any PushSource] { get }

    /// Control routes of its own, added to the `/v1` group (Hyphen's sign-in).
    func addRoutes(to v1: RouterGroup<PeerContext>, writers: Writers)

    /// Picks up what a stopped daemon left unfinished (a Hyphen sign-in waiting for the other device); called once at
    /// start, before the control socket opens.
    func resumeUnfinished() async throws

    /// Verifies a push of this provider's dialect and says what it does: ask the user (an approval draft), or move a
    /// request this device made (a status push).
    func effect(for data: [String: String], receivedAt: Date) async throws(PushRejection) -> PushEffect

    /// Registers this device with the provider for the account the URI describes.
    func enroll(_ uri: EnrollmentDetails, name: String?, device: DeviceIdentity, deviceName: String) async throws
        -> EnrolledAccount

    /// Sends the user's answer to the provider; returns what the provider's reply asks the user to do next.
    func answer(_ approval: StoredApproval, account: StoredAccount, decision: AnswerDecision) async throws(AnswerFailure)
        -> AnswerReply

    /// Tells the provider this device no longer answers for the account (`pushctl remove`), where the provider has
    /// such a call. Throws when it could not be told; the account is removed here all the same.
    func unenroll(_ account: StoredAccount) async throws

    /// Why the account's offline TOTP code must not be shown now (PlusAuth's device binding), or nil.
    func codeRefusal(for account: StoredAccount) async throws -> String?

    /// Tells the provider the device's new push token (the relay registration changed). Throws when the provider
    /// could not be reached or refused: the update is tried again later.
    func updatePushToken(of account: StoredAccount, device: DeviceIdentity, deviceName: String) async throws
        -> PushTokenUpdate

    /// Whether the provider binds the account to this machine (PlusAuth bind_sim): a backup says so, and a restore
    /// on another machine leaves it needing enrollment again.
    func isBoundToMachine(credentials: Data) -> Bool

    /// The credentials to store for an account restored from another machine's backup (a bound account's say that
    /// its binding is broken, so its pushes and codes are refused with the reason). Throws the decoding error when
    /// they are not this provider's: the account would be dead, and the provider blamed for it.
    func restoredCredentials(_ credentials: Data, at now: Date) throws -> Data
}

extension ProviderModule {
    var provider: Provider { descriptor.provider }

    var store: AgentStore { context.store }
    var http: ProviderHTTP { context.http }
    var config: LiveConfig { context.config }
    var logger: Logger { context.logger }

    static var settingsSection: (any ConfigSection.Type)? { nil }

    var pushSources: [any PushSource] { [] }

    func addRoutes(to v1: RouterGroup<PeerContext>, writers: Writers) {}

    func resumeUnfinished() async throws {}

    func codeRefusal(for account: StoredAccount) async throws -> String? { nil }

    func unenroll(_ account: StoredAccount) async throws {}

    /// Whether `updatePushToken` can tell the provider a new token (else the account must be enrolled again).
    var updatesPushToken: Bool { descriptor.capabilities.contains(.pushTokenUpdate) }

    /// The registry routed `uri` here by its form, so it is this provider's.
    func enroll(any uri: EnrollmentURI, name: String?, device: DeviceIdentity, deviceName: String) async throws
        -> EnrolledAccount {
        guard let details = uri.details(as: EnrollmentDetails.self) else {
            preconditionFailure("routed a \(uri.provider) enrollment URI to \(provider)")
        }
        return try await enroll(details, name: name, device: device, deviceName: deviceName)
    }

    func isBoundToMachine(credentials: Data) -> Bool { false }

    func restoredCredentials(_ credentials: Data, at now: Date) throws -> Data {
        _ = try JSONDecoder().decode(credentialsType, from: credentials)
        return credentials
    }

    /// PlusAuth and Hyphen publish no call that changes a registered device's push token.
    func updatePushToken(of account: StoredAccount, device: DeviceIdentity, deviceName: String) async throws
        -> PushTokenUpdate {
        .impossible("\(provider.displayName) has no call to change a device's push token: remove the account (`pushctl remove \(account.account.id)`) and enroll it again")
    }
}

/// What a provider's reply to an answer asks of the user: privacyIDEA's code-to-phone code to type into the
/// sign-in screen. Most replies ask nothing.
struct AnswerReply: Sendable, Equatable {
    var displayCode: String?
    var displayMessage: String?

    static let nothing = AnswerReply()
}

enum PushTokenUpdate: Sendable {
    /// The provider now pushes to the new token; the account's credentials from now on.
    case updated(credentials: Data)
    /// The provider cannot be told; what the user must do instead.
    case impossible(String)
}

struct EnrolledAccount: Sendable {
    var account: Account
    /// The key the provider's pushes name the account by (ForgeRock's mechanism uid, …).
    var lookupKey: String
    var credentials: Data
    var totp: TOTPParameters?
}

/// How sending an answer failed: worth retrying (network, provider overloaded) or final (the provider said no).
enum AnswerFailure: Error, CustomStringConvertible {
    case retryable(String)
    case rejected(String)

    var description: String {
        switch self {
        case .retryable(let m), .rejected(let m): m
        }
    }
}

/// Enrollment failed in a way the user must act on.
struct EnrollmentFailure: Error, CustomStringConvertible {
    var description: String
    /// The provider (not the user's input) refused or was unreachable.
    var upstream: Bool
}
