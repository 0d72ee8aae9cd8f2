import Crypto
import Foundation
import PushAgentCore

/// The Hyphen the simulator plays: users with their sign-in credentials and devices, 2FA requests in both
/// directions, Hyphen's server and paymaster keys, and the Flow chain (`FlowLedger`) behind them.
actor HyphenSim: SimRoleState {
    static let appName = "PushSim"
    let chain = HyphenChain.testnet
    nonisolated let appSecret = "pushsim-hyphen-" + HyphenSim.randomHex(16)
    let serverKey = P256.Signing.PrivateKey()
    let paymasterKey = P256.Signing.PrivateKey()
    let context: SimRoleContext
    let answers = AnswerLog<SimAdminAPI.HyphenAnswer>()
    var publicURL = ""
    var ledger = FlowLedger()

    struct User {
        var email: String
        var credential: String
        var accountId = UUID().uuidString.lowercased()
        var address: FlowAddress?
        /// Devices Hyphen knows, by public key (the agent registers here; the sim's phone too).
        var devices: [String: HyphenDevice] = [:]
        /// The sim's own phone, which approves the agent's sign-in.
        var phone: HyphenDeviceKey?
        var lastRegistration = Date.distantPast
    }

    enum Direction: String { case toAgent = "to_agent", fromAgent = "from_agent" }

    struct TwoFactor {
        var status: Hyphen2FAStatus
        var email: String
        var direction: Direction
        /// The key the request's transaction adds: the requesting device's.
        var newKey: P256.Signing.PublicKey
        var ephemeralToken: String?
        var finished = false
    }

    var users: [String: User] = [:]
    /// Access tokens → (user, device public key).
    var sessions: [String: (email: String, publicKey: String)] = [:]
    var twoFactors: [String: TwoFactor] = [:]
    var challenges: [String: (email: String, publicKey: String, expiresAt: Date)] = [:]

    init(context: SimRoleContext) {
        self.context = context
        ledger.create(chain.paymaster, keys: [.init(publicKey: paymasterKey.publicKey, hashing: "SHA2_256", weight: 1000)])
    }

    // MARK: Admin: users

    func createUser(_ request: SimAdminAPI.HyphenUserRequest) throws(AdminFailure) -> SimAdminAPI.HyphenUser {
        let email = request.email ?? "user\(users.count + 1)@example.com"
        guard !email.isEmpty, users[email] == nil else { throw .invalidArgument("user '\(email)' already exists") }
        var user = User(email: email, credential: "pushsim-signin-" + Self.randomHex(16))
        if request.existingDevice == true {
            let phone = HyphenDeviceKey()
            let address = newAccount(devices: [phone.privateKey.publicKey])
            user.address = address
            user.phone = phone
            user.devices[phone.publicKeyHex] = HyphenDevice(
                id: UUID().uuidString.lowercased(), publicKey: phone.publicKeyHex, pushToken: "pushsim-phone",
                name: "Pixel 8", osName: "Android", osVersion: "14", deviceManufacturer: "Google",
                deviceModel: "pixel8", lang: "en", type: "mobile")
        }
        users[email] = user
        events.emit("hyphen: user \(email) created\(user.address.map { " with account \($0) and a phone" } ?? " (no account yet: the first sign-in signs up)")")
        let uri = HyphenEnrollmentURI(appName: Self.appName, email: email, appSecret: appSecret, chain: chain,
                                      apiURL: publicURL, accessNodeURL: publicURL + FlowAccessRoutes.prefix)
        return .init(email: email, uri: uri.uriString, credential: user.credential, address: user.address?.description)
    }

    /// A Flow account whose keys are Hyphen's server key (#0) and the given devices', each at half weight: every
    /// transaction needs a device and Hyphen's co-signature.
    func newAccount(devices: [P256.Signing.PublicKey]) -> FlowAddress {
        let address = FlowAddress(hex: Self.randomHex(8))!
        ledger.create(address, keys: ([serverKey.publicKey] + devices).map {
            .init(publicKey: $0, hashing: "SHA2_256", weight: FlowLedger.fullWeight / 2)
        })
        return address
    }

    func twoFactorList() -> SimAdminAPI.HyphenTwoFactors {
        .init(requests: twoFactors.values.sorted { $0.status.request.requestedAt < $1.status.request.requestedAt }.map {
            Self.summary($0)
        })
    }

    func transactionList() -> SimAdminAPI.FlowTransactionRecords {
        let now = Date()
        return .init(transactions: ledger.transactions.sorted { $0.value.submittedAt < $1.value.submittedAt }.map { id, submitted in
            let transaction = submitted.transaction
            return .init(id: id, proposer: transaction.proposalKey.address.description,
                         keyIndex: transaction.proposalKey.keyIndex, script: transaction.script,
                         status: ledger.result(of: id, now: now)?.status ?? "Unknown",
                         payloadSigners: transaction.payloadSignatures.map { "\($0.address)#\($0.keyIndex)" },
                         envelopeSigners: transaction.envelopeSignatures.map { "\($0.address)#\($0.keyIndex)" })
        })
    }

    // MARK: Helpers

    static func summary(_ request: TwoFactor) -> SimAdminAPI.HyphenTwoFactor {
        .init(id: request.status.id, email: request.email, direction: request.direction.rawValue,
              status: request.status.status.rawValue, txId: request.status.result?.txId,
              requesterPublicKey: request.status.request.srcDevice.publicKey)
    }

    func user(signedInWith token: String?) throws(HyphenFailure) -> (User, publicKey: String) {
        guard let token, let session = sessions[token], let user = users[session.email] else {
            throw .unauthorized("the bearer token is missing, unknown or expired")
        }
        return (user, session.publicKey)
    }

    func user(withCredential credential: String) throws(HyphenFailure) -> User {
        guard let user = users.values.first(where: { $0.credential == credential }) else {
            throw .unauthorized("the sign-in token is not valid")
        }
        return user
    }

    /// Issues a session for a device and the reply every sign-in ends with.
    func signedIn(_ email: String, publicKey: String) -> HyphenSignInResult {
        let token = "pushsim-access-" + Self.randomHex(16)
        sessions[token] = (email, publicKey)
        let user = users[email]!
        return HyphenSignInResult(
            account: .init(id: user.accountId, addresses: [.init(chainName: chain.rawValue, address: user.address!.description)]),
            credentials: .init(accessToken: token, refreshToken: "pushsim-refresh-" + Self.randomHex(16)))
    }

    func push(_ type: String, _ status: Hyphen2FAStatus, to token: String, ttl: Int) async throws(HyphenFailure) {
        do {
            try await relay.send(token: token, data: try Self.pushData(type, status), ttlSeconds: max(ttl, 30))
        } catch {
            throw HyphenFailure(status: 502, message: "cannot push \(type): \(error)")
        }
    }

    /// The FCM data of a Hyphen push.
    static func pushData(_ type: String, _ status: Hyphen2FAStatus) throws -> [String: String] {
        let json = String(decoding: try JSONEncoder().encode(HyphenSignIn2FA(twoFactorAuth: status)), as: UTF8.self)
        return ["hyphen:type": type, "hyphen:data": json]
    }

    static func randomHex(_ bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<bytes).map { _ in generator.next() }).hex
    }

    /// The script approving a sign-in runs: add the new device's key at half weight.
    static func addKeyCadence(_ key: P256.Signing.PublicKey) -> String {
        """
        transaction {
          prepare(signer: AuthAccount) {
            let key = PublicKey(publicKey: "\(HyphenDeviceKey.hex(of: key))".decodeHex(), signatureAlgorithm: SignatureAlgorithm.ECDSA_P256)
            signer.keys.add(publicKey: key, hashAlgorithm: HashAlgorithm.SHA2_256, weight: 500.0)
          }
        }
        """
    }
}

/// A refusal of Hyphen's REST API, as a NestJS-style body `{"statusCode", "message", "error"}`.
struct HyphenFailure: Error, CustomStringConvertible {
    var status: Int
    var message: String
    var description: String { message }

    static func badRequest(_ message: String) -> HyphenFailure { .init(status: 400, message: message) }
    static func unauthorized(_ message: String) -> HyphenFailure { .init(status: 401, message: message) }
    static func forbidden(_ message: String) -> HyphenFailure { .init(status: 403, message: message) }
    static func notFound(_ message: String) -> HyphenFailure { .init(status: 404, message: message) }
}
