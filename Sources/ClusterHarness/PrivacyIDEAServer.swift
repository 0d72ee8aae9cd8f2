import CurlHTTP
import Foundation

/// A real privacyIDEA server (`scripts/privacyidea-server.sh`: privacyIDEA from PyPI, SQLite, poll-only push
/// enrollment policy) on loopback, and the calls its administrator and a login client make.
public final class PrivacyIDEAServer: PrivacyIDEAFamilyServer {
    public static let product = "privacyIDEA"

    public let baseURL: String
    public let process: ManagedProcess

    /// Starts the server with its state in `directory`; the first run on a machine also installs privacyIDEA.
    public init(directory: String, readyTimeout: Duration = .seconds(600)) async throws {
        (baseURL, process) = try await Self.start(script: "privacyidea-server.sh", healthPath: "/healthz/",
                                                  directory: directory, readyTimeout: readyTimeout)
    }

    /// A new push token for `user` (`/token/init type=push genkey=1`): its enrollment URI, as the QR code shows it.
    public func enrollmentURI(user: String) async throws -> String {
        try await enrollmentURI(user: user, tokenType: "push")
    }
}

/// What privacyIDEA and its fork eduMFA (`EduMFAServer`) have in common here: one script starts either
/// (`scripts/privacyidea-server.sh`, `scripts/edumfa-server.sh`) with the same admin, realm, users and poll-only push
/// policies, and both answer the same administrator and login calls.
public protocol PrivacyIDEAFamilyServer: Sendable {
    /// The server's name in messages: "privacyIDEA", "eduMFA".
    static var product: String { get }
    var baseURL: String { get }
    var process: ManagedProcess { get }
}

/// What `/validate/check` answers when it triggers a push challenge.
public struct PrivacyIDEALoginChallenge: Decodable, Sendable {
    public var transactionId: String
    public var serial: String?
    /// With privacyIDEA's `push_require_presence`: the option the login screen tells the user to pick.
    public var presenceAnswer: String?
    enum CodingKeys: String, CodingKey { case transactionId = "transaction_id", serial, presenceAnswer = "presence_answer" }
}

/// `/validate/polltransaction`'s `detail.challenge_status`: what became of a transaction's challenges.
public enum PrivacyIDEAChallengeStatus: String, Decodable, Sendable {
    case accepted = "accept", declined, pending
    /// privacyIDEA 3.14 only: the phone cancelled the request.
    case cancelled
}

extension PrivacyIDEAFamilyServer {
    public static var admin: (user: String, password: String) { ("admin", "admin-password-for-tests") }
    public static var realm: String { "pushrealm" }

    /// Runs `scripts/<script> serve directory PORT` on a free port and waits until `healthPath` answers 200.
    static func start(script: String, healthPath: String, directory: String,
                      readyTimeout: Duration) async throws -> (baseURL: String, process: ManagedProcess) {
        let port = try Cluster.freePort()
        let baseURL = "http://127.0.0.1:\(port)", health = baseURL + healthPath
        let path = Binaries.packageRoot().appendingPathComponent("scripts/" + script).path
        let process = try ManagedProcess(name: product, executable: "/bin/bash",
                                         arguments: [path, "serve", directory, String(port)])
        try await eventually("\(product) answers on \(baseURL)", timeout: readyTimeout) {
            guard process.isRunning else { throw HarnessError("\(product) exited:\n\(process.text)") }
            return (try? await CurlHTTPClient.shared.send(HTTPRequest(url: health, timeout: .seconds(5))))?.status == 200
        }
        return (baseURL, process)
    }

    public func stop() async { await process.stop() }

    /// A new token of `tokenType` for `user` (`/token/init type=… genkey=1`): the enrollment URI its QR code shows
    /// (`detail.pushurl.value`).
    func enrollmentURI(user: String, tokenType: String) async throws -> String {
        try await call("POST", "/token/init", ["type": tokenType, "genkey": "1", "user": user, "realm": Self.realm],
                       token: adminToken(), as: Wire.PushURLDetail.self).pushurl.value
    }

    /// What a login client does first: `/validate/check` with the (empty) token PIN, which triggers a push challenge
    /// on each of the user's push tokens (one transaction).
    public func triggerChallenge(user: String) async throws -> PrivacyIDEALoginChallenge {
        try await call("POST", "/validate/check", ["user": user, "realm": Self.realm, "pass": ""],
                       as: PrivacyIDEALoginChallenge.self)
    }

    /// `/validate/polltransaction`: has the phone (here, the agent) accepted the challenge?
    public func isAccepted(transactionId: String) async throws -> Bool {
        try await result("GET", "/validate/polltransaction", ["transaction_id": transactionId]).value?.boolValue ?? false
    }

    /// `/validate/polltransaction`'s verdict: accepted, declined (privacyIDEA 3.14 also: cancelled) or still pending.
    public func challengeStatus(transactionId: String) async throws -> PrivacyIDEAChallengeStatus {
        try await call("GET", "/validate/polltransaction", ["transaction_id": transactionId],
                       as: Wire.StatusDetail.self).challengeStatus
    }

    /// The login client's last step: `/validate/check` with the transaction id and what the user typed (in
    /// code-to-phone mode the code the phone showed); returns `result.authentication`.
    public func finishLogin(user: String, transactionId: String, pass: String = "") async throws -> String {
        try await result("POST", "/validate/check", ["user": user, "realm": Self.realm, "pass": pass,
                                                     "transaction_id": transactionId]).authentication ?? "(none)"
    }

    /// How many entries of the server's audit log have an `action_detail` matching `pattern` (`*` wildcards).
    public func auditCount(actionDetail pattern: String) async throws -> Int {
        let body = try await send("GET", "/audit/", ["action_detail": pattern], token: adminToken())
        return try JSONDecoder().decode(Wire.ValueReply<Wire.Count>.self, from: body).result.value.count
    }

    private func adminToken() async throws -> String {
        let body = try await send("POST", "/auth", ["username": Self.admin.user, "password": Self.admin.password])
        return try JSONDecoder().decode(Wire.ValueReply<Wire.Token>.self, from: body).result.value.token
    }

    private func result(_ method: String, _ path: String, _ fields: [String: String]) async throws -> Wire.Result {
        try JSONDecoder().decode(Wire.ResultReply.self, from: try await send(method, path, fields)).result
    }

    private func call<T: Decodable>(_ method: String, _ path: String, _ fields: [String: String], token: String? = nil,
                                    as type: T.Type) async throws -> T {
        try JSONDecoder().decode(Wire.DetailReply<T>.self, from: try await send(method, path, fields, token: token)).detail
    }

    private func send(_ method: String, _ path: String, _ fields: [String: String], token: String? = nil) async throws -> Data {
        let form = fields.sorted { $0.key < $1.key }.map { key, value in
            "\(key)=\(value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value)"
        }.joined(separator: "&")
        var headers: [(name: String, value: String)] = token.map { [(name: "Authorization", value: $0)] } ?? []
        var url = baseURL + path
        var body: Data?
        if method == "GET" {
            url += "?" + form
        } else {
            headers.append((name: "Content-Type", value: "application/x-www-form-urlencoded"))
            body = Data(form.utf8)
        }
        let response = try await CurlHTTPClient.shared.send(HTTPRequest(method: method, url: url, headers: headers, body: body))
        guard response.status == 200 else {
            throw HarnessError("\(Self.product) \(method) \(path): HTTP \(response.status): \(response.text.prefix(300))")
        }
        return response.body
    }
}

/// The replies' shapes (types cannot be nested in the protocol extension's methods).
private enum Wire {
    struct DetailReply<T: Decodable>: Decodable { var detail: T }
    struct ValueReply<T: Decodable>: Decodable { struct R: Decodable { var value: T }; var result: R }
    struct ResultReply: Decodable { var result: Result }

    /// A reply's `result`.
    struct Result: Decodable {
        enum Value: Decodable {
            case bool(Bool), other
            init(from decoder: any Decoder) throws {
                self = (try? decoder.singleValueContainer().decode(Bool.self)).map(Value.bool) ?? .other
            }
            var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
        }
        var status: Bool
        var value: Value?
        var authentication: String?
    }

    struct Token: Decodable { var token: String }
    struct Count: Decodable { var count: Int }
    struct PushURLDetail: Decodable { struct URL: Decodable { var value: String }; var pushurl: URL }
    struct StatusDetail: Decodable {
        var challengeStatus: PrivacyIDEAChallengeStatus
        enum CodingKeys: String, CodingKey { case challengeStatus = "challenge_status" }
    }
}
