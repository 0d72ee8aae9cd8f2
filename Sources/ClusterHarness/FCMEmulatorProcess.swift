import CurlHTTP
import Foundation

/// `pushsim fcm serve` as a real process, with a test certificate of its own (openssl) for MCS over TLS.
public final class FCMEmulatorProcess: Sendable {
    public let process: ManagedProcess
    public let httpURL: String
    public let mcsHost: String
    public let mcsPort: Int
    /// The PEM certificate MCS presents, which clients must trust (SSL_CERT_FILE, fcm_ca_file).
    public let certificate: String
    /// The name pushagentd knows the emulator's app by (`daemonEnvironment` sets the default app's keys).
    public static let appName = "default"
    /// What a Firebase web app's config says, as the emulator accepts it.
    public static let projectID = "pushagent-test", apiKey = "AIzaSyPushagentTest",
                      appID = "1:123456789012:web:0123abcd", senderID = "123456789012"

    /// Where it keeps its state across restarts; nil: in memory, lost with the process.
    public let stateFile: String?
    /// Its certificate and key are here: a restart in the same directory presents the same certificate.
    public let directory: String

    /// A new emulator on the ports given (0 picks free ones), its state in memory or in `stateFile` (read if it
    /// exists). Its certificate is made once per directory.
    public init(directory: String, httpPort: Int = 0, mcsPort: Int = 0, stateFile: String? = nil) async throws {
        certificate = directory + "/fcm-cert.pem"
        self.stateFile = stateFile
        self.directory = directory
        let key = directory + "/fcm-key.pem"
        if !FileManager.default.fileExists(atPath: key) { try await Self.makeCertificate(certificate, key: key) }
        process = try ManagedProcess(name: "pushsim fcm", executable: Binaries.path("pushsim"), arguments: [
            "fcm", "serve", "--listen", "127.0.0.1:\(httpPort)", "--mcs-listen", "127.0.0.1:\(mcsPort)",
            "--tls-cert", certificate, "--tls-key", key] + (stateFile.map { ["--state", $0] } ?? []))
        httpURL = try await process.waitForLine(startingWith: "pushsim listening on ")
        let mcs = try await process.waitForLine(startingWith: "pushsim mcs listening on ").split(separator: ":")
        mcsHost = String(mcs[0])
        self.mcsPort = Int(mcs[1]) ?? 0
    }

    /// Another emulator where this one was (stop this one first): Google's FCM having forgotten every registration.
    public func restartedEmpty() async throws -> FCMEmulatorProcess {
        try await FCMEmulatorProcess(directory: directory, httpPort: URL(string: httpURL)?.port ?? 0, mcsPort: mcsPort)
    }

    /// Another emulator where this one was (stop or kill this one first), with the state it kept: Google's FCM
    /// restarted, registrations and accepted messages intact.
    public func restarted() async throws -> FCMEmulatorProcess {
        try await FCMEmulatorProcess(directory: directory, httpPort: URL(string: httpURL)?.port ?? 0, mcsPort: mcsPort,
                                     stateFile: stateFile)
    }

    /// A self-signed P-256 certificate for the names given (the emulator's own is for localhost and 127.0.0.1; one
    /// made in its directory before it starts is taken instead).
    public static func makeCertificate(_ certificate: String, key: String,
                                       names: String = "DNS:localhost,IP:127.0.0.1") async throws {
        let openssl = try await CommandResult.run("/usr/bin/openssl", [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", "/CN=pushagent-test",
            "-addext", "subjectAltName=" + names, "-days", "2", "-keyout", key, "-out", certificate])
        guard openssl.status == 0 else { throw HarnessError("openssl could not make the emulator's certificate: \(openssl.stderr)") }
    }

    /// The base URL of FCM HTTP v1's send API, as pushsim's providers take it (`serve --relay`).
    public var sendBaseURL: String { httpURL + "/fcm/send" }

    /// pushagentd's settings for receiving through this emulator.
    public var daemonEnvironment: [String: String] {
        ["PUSHAGENT_FCM_PROJECT_ID": Self.projectID, "PUSHAGENT_FCM_API_KEY": Self.apiKey,
         "PUSHAGENT_FCM_APP_ID": Self.appID, "PUSHAGENT_FCM_SENDER_ID": Self.senderID,
         "PUSHAGENT_FCM_CHECKIN_URL": httpURL + "/fcm/checkin", "PUSHAGENT_FCM_REGISTER_URL": httpURL + "/fcm/c2dm/register3",
         "PUSHAGENT_FCM_INSTALLATIONS_URL": httpURL + "/fcm/installations/v1/",
         "PUSHAGENT_FCM_REGISTRATIONS_URL": httpURL + "/fcm/registrations/v1/",
         "PUSHAGENT_FCM_MCS_HOST": mcsHost, "PUSHAGENT_FCM_MCS_PORT": "\(mcsPort)",
         "PUSHAGENT_FCM_MCS_FALLBACK_PORT": "\(mcsPort)", "PUSHAGENT_FCM_CA_FILE": certificate,
         "PUSHAGENT_FCM_HEARTBEAT_SECONDS": "5"]
    }

    /// FCM HTTP v1's send of a data message to `token`.
    public func send(_ data: [String: String], to token: String) async throws -> HTTPResponse {
        let body = try JSONSerialization.data(withJSONObject: ["message": ["token": token, "data": data]])
        return try await CurlHTTPClient.shared.send(HTTPRequest(
            method: "POST", url: sendBaseURL + "/v1/projects/\(Self.senderID)/messages:send",
            headers: [("Content-Type", "application/json")], body: body))
    }

    /// Makes the emulator's next `sessions` MCS sessions misbehave (pushsim's MCSMisbehaviour: garbage,
    /// huge_length, wrong_version, undecryptable, silent, trickle, refuse_login_503, refuse_login_401,
    /// close_after_login, ping_flood); connected clients are sent a Close so they log in again.
    public func misbehave(_ mode: String, sessions: Int = 1) async throws -> HTTPResponse {
        try await post("/fcm/sim/misbehave", ["mode": mode, "sessions": sessions])
    }

    /// Encrypts later sends with `aes128gcm` (marked as Chromium reads it) or `aesgcm`, FCM's usual.
    public func useContentCoding(_ coding: String) async throws -> HTTPResponse {
        try await post("/fcm/sim/content-coding", ["content_coding": coding])
    }

    /// The receiving keys of the registration whose token this is (`p256dh`, `auth`, base64url), for a sender of
    /// a test's own.
    public func webPushKeys(token: String) async throws -> (p256dh: String, auth: String) {
        let reply = try await CurlHTTPClient.shared.send(HTTPRequest(method: "GET", url: httpURL + "/fcm/sim/registrations/" + token))
        guard reply.status == 200, let json = try JSONSerialization.jsonObject(with: reply.body) as? [String: String],
              let p256dh = json["p256dh"], let auth = json["auth"] else {
            throw HarnessError("the emulator has no registration with token \(token): \(reply.status)")
        }
        return (p256dh, auth)
    }

    /// Delivers a stanza a test encrypted itself to the registration's device, with the app data given.
    public func deliver(rawData: Data, appData: [String: String], to token: String, from sender: String) async throws
        -> HTTPResponse {
        try await post("/fcm/sim/deliver", ["token": token, "from": sender, "app_data": appData,
                                            "raw_data": rawData.base64EncodedString()])
    }

    private func post(_ path: String, _ object: [String: Any]) async throws -> HTTPResponse {
        try await CurlHTTPClient.shared.send(HTTPRequest(
            method: "POST", url: httpURL + path, headers: [("Content-Type", "application/json")],
            body: try JSONSerialization.data(withJSONObject: object)))
    }

    public func stop() async { await process.stop() }
}
