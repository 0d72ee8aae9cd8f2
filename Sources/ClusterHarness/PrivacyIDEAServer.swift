import CurlHTTP
import Foundation

/// A real privacyIDEA server (`scripts/privacyidea-server.sh`: privacyIDEA from PyPI, SQLite, poll-only push
/// enrollment policy) on loopback, and the calls its administrator and a login client make.
public final class PrivacyIDEAServer: Sendable {
    public static let admin = (user: "admin", password: "admin-password-for-tests")
    public static let realm = "pushrealm"

    public let baseURL: String
    public let process: ManagedProcess

    /// Starts the server with its state in `directory`; the first run on a machine also installs privacyIDEA.
    public init(directory: String, readyTimeout: Duration = .seconds(600)) async throws {
        let port = try Cluster.freePort()
        baseURL = "http://127.0.0.1:\(port)"
        let script = Binaries.packageRoot().appendingPathComponent("scripts/privacyidea-server.sh").path
        process = try ManagedProcess(name: "privacyidea", executable: "/bin/bash",
                                     arguments: [script, "serve", directory, String(port)])
        let process = self.process, health = baseURL + "/healthz/"
        try await eventually("privacyIDEA answers on \(baseURL)", timeout: readyTimeout) {
            guard process.isRunning else { throw HarnessError("privacyIDEA exited:\n\(process.text)") }
            return (try? await CurlHTTPClient.shared.send(HTTPRequest(url: health, timeout: .seconds(5))))?.status == 200
        }
    }

    public func stop() async { await process.stop() }

    /// A new push token for `user` (`/token/init type=push genkey=1`): its enrollment URI, as the QR code shows it.
    public func enrollmentURI(user: String) async throws -> String {
        struct Detail: Decodable { struct URL: Decodable { var value: String }; var pushurl: URL }
        return try await call("POST", "/token/init", ["type": "push", "genkey": "1", "user": user, "realm": Self.realm],
                              token: adminToken(), as: Detail.self).pushurl.value
    }

    public struct Challenge: Decodable, Sendable {
        public var transactionId: String
        public var serial: String?
        /// With `push_require_presence`: the option the login screen tells the user to pick.
        public var presenceAnswer: String?
        enum CodingKeys: String, CodingKey { case transactionId = "transaction_id", serial, presenceAnswer = "presence_answer" }
    }

    /// What a login client does first: `/validate/check` with the (empty) token PIN, which triggers a push challenge.
    public func triggerChallenge(user: String) async throws -> Challenge {
        try await call("POST", "/validate/check", ["user": user, "realm": Self.realm, "pass": ""], as: Challenge.self)
    }

    /// `/validate/polltransaction`: has the phone (here, the agent) accepted the challenge?
    public func isAccepted(transactionId: String) async throws -> Bool {
        try await result("GET", "/validate/polltransaction", ["transaction_id": transactionId]).value?.boolValue ?? false
    }

    /// The login client's last step: `/validate/check` with the transaction id and what the user typed (in
    /// code-to-phone mode the code the phone showed); returns `result.authentication`.
    public func finishLogin(user: String, transactionId: String, pass: String = "") async throws -> String {
        try await result("POST", "/validate/check", ["user": user, "realm": Self.realm, "pass": pass,
                                                     "transaction_id": transactionId]).authentication ?? "(none)"
    }

    /// How many entries of privacyIDEA's audit log have an `action_detail` matching `pattern` (`*` wildcards).
    public func auditCount(actionDetail pattern: String) async throws -> Int {
        struct Value: Decodable { var count: Int }
        struct Reply: Decodable { struct R: Decodable { var value: Value }; var result: R }
        let body = try await send("GET", "/audit/", ["action_detail": pattern], token: adminToken())
        return try JSONDecoder().decode(Reply.self, from: body).result.value.count
    }

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

    private func adminToken() async throws -> String {
        struct Value: Decodable { var token: String }
        struct Reply: Decodable { struct R: Decodable { var value: Value }; var result: R }
        let body = try await send("POST", "/auth", ["username": Self.admin.user, "password": Self.admin.password])
        return try JSONDecoder().decode(Reply.self, from: body).result.value.token
    }

    private func result(_ method: String, _ path: String, _ fields: [String: String]) async throws -> Result {
        struct Reply: Decodable { var result: Result }
        return try JSONDecoder().decode(Reply.self, from: try await send(method, path, fields)).result
    }

    private func call<T: Decodable>(_ method: String, _ path: String, _ fields: [String: String], token: String? = nil,
                                    as type: T.Type) async throws -> T {
        try JSONDecoder().decode(DetailReply<T>.self, from: try await send(method, path, fields, token: token)).detail
    }

    private struct DetailReply<T: Decodable>: Decodable { var detail: T }

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
        guard response.status == 200 else { throw HarnessError("privacyIDEA \(method) \(path): HTTP \(response.status): \(response.text.prefix(300))") }
        return response.body
    }
}
