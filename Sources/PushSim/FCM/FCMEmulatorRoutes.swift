import Foundation
import HTTPTypes
import Hummingbird
import PushAgentCore

/// The emulator's HTTP side, each of Google's services under a prefix of its own (point FCMEndpoints at them):
/// `/fcm/checkin`, `/fcm/c2dm/register3`, `/fcm/installations/v1/…`, `/fcm/registrations/v1/…`, and FCM HTTP v1's
/// send at `/fcm/send/v1/projects/{project}/messages:send`.
struct FCMEmulatorRoutes {
    let emulator: FCMEmulator

    func add(to router: Router<BasicRequestContext>) {
        router.post("/fcm/checkin") { request, _ in try await checkIn(request) }
        router.post("/fcm/c2dm/register3") { request, _ in try await registerGCM(request) }
        router.post("/fcm/installations/v1/projects/:project/installations") { request, _ in
            try await createInstallation(request)
        }
        router.post("/fcm/installations/v1/projects/:project/installations/:fid/authTokens:generate") { request, _ in
            try await refreshInstallation(request)
        }
        router.post("/fcm/registrations/v1/projects/:project/registrations") { request, _ in try await registerWebPush(request) }
        router.post("/fcm/send/v1/projects/:project/messages:send") { request, context in
            try await send(request, project: context.parameters.get("project") ?? "")
        }
        // Not Google's: the emulator's own switch for the receiver's robustness tests.
        router.post("/fcm/sim/misbehave") { request, _ in
            guard let json = try JSONSerialization.jsonObject(with: try await body(request)) as? [String: Any],
                  let mode = (json["mode"] as? String).flatMap(MCSMisbehaviour.init(rawValue:)) else {
                return Self.googleError(400, "INVALID_ARGUMENT",
                                        "mode must be one of \(MCSMisbehaviour.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            let sessions = json["sessions"] as? Int ?? 1
            await emulator.misbehave(mode, sessions: max(1, sessions))
            return Self.json(["mode": mode.rawValue, "sessions": max(1, sessions)])
        }
        router.post("/fcm/sim/content-coding") { request, _ in
            guard let json = try JSONSerialization.jsonObject(with: try await body(request)) as? [String: Any],
                  let coding = (json["content_coding"] as? String).flatMap(ContentCoding.init(rawValue:)) else {
                return Self.googleError(400, "INVALID_ARGUMENT", "content_coding must be aes128gcm or aesgcm")
            }
            await emulator.useContentCoding(coding)
            return Self.json(["content_coding": coding.rawValue])
        }
        router.get("/fcm/sim/registrations/:token") { _, context in
            guard let keys = await emulator.webPushKeys(token: context.parameters.get("token") ?? "") else {
                return Self.googleError(404, "NOT_FOUND", "no registration has that token")
            }
            return Self.json(["p256dh": FCMEmulator.paddedBase64URL(keys.p256dh), "auth": FCMEmulator.paddedBase64URL(keys.auth)])
        }
        router.post("/fcm/sim/deliver") { request, _ in try await deliver(request) }
    }

    /// `{"token", "from", "raw_data": base64url, "app_data": {key: value}}`: a stanza a test encrypted itself.
    private func deliver(_ request: Request) async throws -> Response {
        guard let json = try JSONSerialization.jsonObject(with: try await body(request)) as? [String: Any],
              let token = json["token"] as? String, let raw = (json["raw_data"] as? String).flatMap(LenientBase64.decode),
              let appData = json["app_data"] as? [String: String] else {
            return Self.googleError(400, "INVALID_ARGUMENT", "token, raw_data (base64url) and app_data are required")
        }
        do {
            try await emulator.deliver(rawData: raw, appData: appData.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
                                       to: token, from: json["from"] as? String ?? "0")
        } catch FCMEmulator.SendFailure.unregistered {
            return Self.googleError(404, "NOT_FOUND", "Requested entity was not found.")
        }
        return Self.json(["delivered": true])
    }

    private func body(_ request: Request) async throws -> Data {
        var request = request
        return Data(buffer: try await request.collectBody(upTo: 64 * 1024))
    }

    private func checkIn(_ request: Request) async throws -> Response {
        guard let checkin = try? CheckinProto_AndroidCheckinRequest(serializedBytes: try await body(request)) else {
            return Response(status: .badRequest)
        }
        let device = try await emulator.checkIn(renewing: checkin.hasID ? UInt64(bitPattern: checkin.id) : nil,
                                            securityToken: checkin.hasSecurityToken ? checkin.securityToken : nil)
        var reply = CheckinProto_AndroidCheckinResponse()
        reply.statsOk = true
        reply.timeMsec = Int64(Date().timeIntervalSince1970 * 1000)
        reply.androidID = device.androidID
        reply.securityToken = device.securityToken
        return Response(status: .ok, headers: [.contentType: "application/x-protobuf"],
                        body: .init(byteBuffer: ByteBuffer(bytes: try reply.serializedBytes() as [UInt8])))
    }

    /// GCM answers 200 with `token=…` or `Error=…`.
    private func registerGCM(_ request: Request) async throws -> Response {
        let form = Self.form(String(decoding: try await body(request), as: UTF8.self))
        let credentials = request.headers[.authorization].flatMap { $0.hasPrefix("AidLogin ") ? $0.dropFirst(9) : nil }?
            .split(separator: ":").compactMap { UInt64($0) }
        guard let credentials, credentials.count == 2,
              await emulator.isKnown(GCMDevice(androidID: credentials[0], securityToken: credentials[1])) else {
            return Self.text("Error=AUTHENTICATION_FAILED")
        }
        guard let subtype = form["X-subtype"], !subtype.isEmpty, form["sender"] != nil else {
            return Self.text("Error=INVALID_PARAMETERS")
        }
        let token = try await emulator.registerGCM(GCMDevice(androidID: credentials[0], securityToken: credentials[1]),
                                               subtype: subtype)
        return Self.text("token=\(token)")
    }

    private func createInstallation(_ request: Request) async throws -> Response {
        guard request.headers[Self.apiKeyHeader]?.isEmpty == false else {
            return Self.googleError(403, "PERMISSION_DENIED", "The request is missing a valid API key.")
        }
        guard let json = try JSONSerialization.jsonObject(with: try await body(request)) as? [String: Any],
              let fid = json["fid"] as? String, let appID = json["appId"] as? String else {
            return Self.googleError(400, "INVALID_ARGUMENT", "fid and appId are required")
        }
        // Google takes any platform's app id here (web, android, ios: what firebase-messaging registers with) and
        // refuses what is not one, in these words.
        guard !appID.isEmpty, FirebaseAppProfile.problem(ofKey: "app_id", value: appID) == nil else {
            return Self.googleError(400, "INVALID_ARGUMENT", "Request contains an invalid argument.")
        }
        let (refresh, auth) = try await emulator.createInstallation(fid: fid, appID: appID)
        return Self.json(["name": "projects/emulated/installations/\(fid)", "fid": fid, "refreshToken": refresh,
                          "authToken": ["token": auth, "expiresIn": "604800s"]])
    }

    private func refreshInstallation(_ request: Request) async throws -> Response {
        guard let header = request.headers[.authorization], header.hasPrefix("FIS_v2 "),
              let auth = try await emulator.refreshInstallation(refreshToken: String(header.dropFirst(7))) else {
            return Self.googleError(401, "UNAUTHENTICATED", "Request is missing a valid refresh token.")
        }
        return Self.json(["token": auth, "expiresIn": "604800s"])
    }

    private func registerWebPush(_ request: Request) async throws -> Response {
        let authToken = request.headers[Self.installationAuthHeader] ?? ""
        guard let json = try JSONSerialization.jsonObject(with: try await body(request)) as? [String: Any],
              let web = json["web"] as? [String: Any], let endpoint = web["endpoint"] as? String,
              let p256dh = (web["p256dh"] as? String).flatMap(LenientBase64.decode),
              let auth = (web["auth"] as? String).flatMap(LenientBase64.decode) else {
            return Self.googleError(400, "INVALID_ARGUMENT", "web.endpoint, web.p256dh and web.auth are required")
        }
        do {
            let token = try await emulator.registerWebPush(
                authToken: authToken, gcmToken: String(endpoint.split(separator: "/").last ?? ""), p256dh: p256dh, auth: auth)
            return Self.json(["token": token])
        } catch {
            switch error {
            case .badAuth:
                return Self.googleError(401, "UNAUTHENTICATED", "Request is missing required authentication credential.")
            case .unknownGCMToken:
                return Self.googleError(400, "INVALID_ARGUMENT", "The endpoint is not a registered GCM token.")
            case .badKeys:
                return Self.googleError(400, "INVALID_ARGUMENT", "p256dh must be a P-256 point and auth 16 bytes")
            case .unsaved(let why):
                return Self.googleError(503, "UNAVAILABLE", "the emulator could not save its state: \(why)")
            }
        }
    }

    private func send(_ request: Request, project: String) async throws -> Response {
        guard let json = try? JSONSerialization.jsonObject(with: try await body(request)) as? [String: Any],
              let message = json["message"] as? [String: Any], let token = message["token"] as? String else {
            return Self.googleError(400, "INVALID_ARGUMENT", "message.token is required")
        }
        let data = (message["data"] as? [String: Any] ?? [:]).compactMapValues { $0 as? String }
        do {
            let id = try await emulator.send(data: data, to: token, from: project)
            return Self.json(["name": "projects/\(project)/messages/\(id)"])
        } catch {
            return Self.json(["error": ["code": 404, "status": "NOT_FOUND", "message": "Requested entity was not found.",
                                        "details": [["@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError",
                                                     "errorCode": "UNREGISTERED"]]]], status: .notFound)
        }
    }

    static let apiKeyHeader = HTTPField.Name("x-goog-api-key")!
    static let installationAuthHeader = HTTPField.Name("x-goog-firebase-installations-auth")!

    static func form(_ text: String) -> [String: String] {
        Dictionary(text.split(separator: "&").compactMap { pair -> (String, String)? in
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { return nil }
            let decode = { (part: Substring) in part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "" }
            return (decode(parts[0]), decode(parts[1]))
        }, uniquingKeysWith: { $1 })
    }

    static func text(_ body: String) -> Response {
        Response(status: .ok, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    static func json(_ object: [String: Any], status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return Response(status: status, headers: [.contentType: "application/json"],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// Google's JSON error shape.
    static func googleError(_ code: Int, _ status: String, _ message: String) -> Response {
        json(["error": ["code": code, "status": status, "message": message]], status: .init(code: code))
    }
}
