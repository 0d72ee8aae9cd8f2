import Foundation
import PushAgentCore

/// The Auth0 Guardian tenant the simulator plays (protocols.md §10): enrollment tickets, enrolled devices
/// with their public keys and push tokens, and the sign-in transactions pushed to them.
actor GuardianSim: SimRoleState {
    typealias API = SimAdminAPI.Guardian

    /// Guardian's own hosts serve the device API at their root, a tenant's domain under `/appliance-mfa`; the agent
    /// picks by the `base_url` host (§10.1), and a loopback sim is never a Guardian host, so both are served.
    static let apiPrefixes = ["", "/appliance-mfa"]

    struct Ticket {
        var account: String
        var issuer: String
        var deviceId: String
        var totp: TOTPParameters?
    }

    struct Device {
        var record: API.Device
        var publicKey: GuardianJWK
        /// The enrollment reply's `token`: the deprecated bearer of the device-account calls.
        var deviceToken: String
    }

    struct Transaction {
        var id: String
        var device: String
        var unknownDevice: Bool
        var txtkn: String
        var challenge: String
        var data: [String: String]
        var expiresAt: Date
        var state = API.State.pending
        var reason: String?
        var verified = false
        var pushes = 0
        var resolutions: [API.Resolution] = []
    }

    let context: SimRoleContext
    var publicURL = ""
    /// Issued, unused tickets by `enrollment_tx_id`.
    var tickets: [String: Ticket] = [:]
    var devices: [String: Device] = [:]
    var transactions: [String: Transaction] = [:]
    /// Transaction ids by `txtkn`.
    var transactionsByToken: [String: String] = [:]
    /// One Auth0 user per account name, so re-enrolling keeps the `user_id`.
    var userIds: [String: String] = [:]
    let resolutions = AnswerLog<API.Resolution>()
    var resolutionCount = 0

    init(context: SimRoleContext) {
        self.context = context
    }

    // MARK: Admin API

    func enrollmentURI(_ request: API.EnrollURIRequest) throws(AdminFailure) -> API.EnrollURIResponse {
        let (account, issuer) = try request.label()
        let baseURL = request.baseURL ?? publicURL
        guard GuardianAPIBase.resolve(baseURL) != nil else {
            throw .invalidArgument("base_url must be an http(s) URL, not '\(baseURL)'")
        }
        let totp = request.totp == false ? nil : try? TOTPParameters(secret: SimRandom.bytes(20))
        let ticket = SimRandom.bytes(24).base64URLUnpadded
        let deviceId = "dev_" + Self.alphanumerics(16)
        tickets[ticket] = Ticket(account: account, issuer: issuer, deviceId: deviceId, totp: totp)
        events.emit("guardian: issued an enrollment URI for \(account) (\(deviceId))")
        let uri = GuardianEnrollmentURI(issuer: issuer, accountName: account, enrollmentTransactionId: ticket,
                                        baseURL: baseURL, enrollmentId: deviceId, totp: totp)
        return API.EnrollURIResponse(uri: uri.uriString, enrollmentTxId: ticket, deviceId: deviceId, issuer: issuer,
                                     baseURL: baseURL)
    }

    func deviceList() -> [API.Device] {
        devices.values.map(\.record).sorted { $0.enrolledAt < $1.enrolledAt }
    }

    /// The transaction's state; with `wait`, once it is no longer pending or the wait ends.
    func transaction(_ id: String, wait: Duration) async throws(AdminFailure) -> API.Transaction {
        let deadline = ContinuousClock.now + wait
        while true {
            guard let transaction = transactions[id] else {
                throw AdminFailure(status: 404, code: "not_found", message: "no transaction '\(id)'")
            }
            let remaining = deadline - .now
            guard transaction.state == .pending, remaining > .zero else { return Self.view(transaction) }
            // Empty means the wait ended without a resolution (timeout, cancellation, shutdown).
            if await resolutions.answers(after: resolutionCount, wait: remaining).isEmpty {
                return try await self.transaction(id, wait: .zero)
            }
        }
    }

    static func view(_ transaction: Transaction) -> API.Transaction {
        API.Transaction(id: transaction.id, device: transaction.device, unknownDevice: transaction.unknownDevice,
                        state: transaction.state, reason: transaction.reason, verified: transaction.verified,
                        challenge: transaction.challenge, pushes: transaction.pushes, expiresAt: transaction.expiresAt,
                        resolutions: transaction.resolutions)
    }

    /// Guardian's ids look like `dev_ztaIUOx5Z3zeRimt`.
    static func alphanumerics(_ count: Int) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        return String(SimRandom.bytes(count).map { alphabet[Int($0) % alphabet.count] })
    }
}
