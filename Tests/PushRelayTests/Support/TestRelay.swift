import CurlHTTP
import Foundation
@testable import PushRelay

let testProject = "proj"
let testSenderKey = "sender-key-proj"
let otherProject = "other"
let otherSenderKey = "sender-key-other"

/// A relay running in this process on 127.0.0.1 with a free port.
final class TestRelay: Sendable {
    let baseURL: String
    let database: RelayDatabase
    private let server: RelayServer
    private let running: Task<Void, any Error>

    private init(baseURL: String, database: RelayDatabase, server: RelayServer, running: Task<Void, any Error>) {
        self.baseURL = baseURL
        self.database = database
        self.server = server
        self.running = running
    }

    /// The SQLite state directory (empty on PostgreSQL).
    var stateDirectory: String {
        if case .sqlite(let directory) = database { directory } else { "" }
    }

    static func start(stateDirectory: String, registrationKey: String? = nil, serviceAccountKeys: [ServiceAccountKey] = [],
                      publicURL: String? = nil,
                      maximumQueuedPerDevice: Int = RelayConfig.defaultMaximumQueuedPerDevice) async throws -> TestRelay {
        try await start(database: .sqlite(directory: stateDirectory), registrationKey: registrationKey,
                        serviceAccountKeys: serviceAccountKeys, publicURL: publicURL, maximumQueuedPerDevice: maximumQueuedPerDevice)
    }

    /// `databaseTimeout`: on PostgreSQL, how long a request's database work may take. The tests share one server
    /// on two cores with everything else the suite runs at once, where PostgreSQL has stalled past the production 5 s
    /// (and failed sends that nothing was testing the deadline of); the outage tests use the production value.
    static func start(database: RelayDatabase, registrationKey: String? = nil, serviceAccountKeys: [ServiceAccountKey] = [],
                      publicURL: String? = nil, maximumQueuedPerDevice: Int = RelayConfig.defaultMaximumQueuedPerDevice,
                      webPushRateLimits: WebPushRateLimits = WebPushRateLimits(),
                      databaseTimeout: Duration = .seconds(30)) async throws -> TestRelay {
        var database = database
        if case .postgres(var settings) = database {
            settings.operationTimeout = databaseTimeout
            database = .postgres(settings)
        }
        var config = RelayConfig(
            listen: ListenAddress(host: "127.0.0.1", port: 0), database: database,
            senderKeys: [SenderKey(project: testProject, key: testSenderKey), SenderKey(project: otherProject, key: otherSenderKey)],
            registrationKey: registrationKey, serviceAccountKeys: serviceAccountKeys, publicURL: publicURL,
            maximumQueuedPerDevice: maximumQueuedPerDevice)
        config.webPushRateLimits = webPushRateLimits
        let (addresses, continuation) = AsyncStream<ListenAddress>.makeStream()
        let server = try await RelayServer(config: config) { continuation.yield($0) }
        let running = Task {
            defer { continuation.finish() }
            try await server.run()
        }
        guard let address = await addresses.first(where: { _ in true }) else {
            try await running.value
            throw TestFailure("the relay stopped before listening")
        }
        return TestRelay(baseURL: "http://\(address)", database: database, server: server, running: running)
    }

    func stop() async throws {
        await server.shutdown()
        try await running.value
    }

    /// Resolves once `count` polls are waiting, as seen on /metrics.
    func waitForWaitingPolls(_ count: Int) async throws {
        for _ in 0..<500 {
            if try await metric("pushrelay_polls_waiting") == count { return }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw TestFailure("never saw \(count) waiting polls")
    }

    func metric(_ name: String) async throws -> Int? {
        let response = try await http("GET", "/metrics")
        for line in response.text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Int(line.dropFirst(name.count + 1))
        }
        return nil
    }

    func http(_ method: String, _ path: String, bearer: String? = nil, json: Any? = nil, rawBody: Data? = nil,
              headers: [(name: String, value: String)] = [], timeout: Duration = .seconds(30)) async throws -> HTTPResponse {
        var headers = headers
        if let bearer { headers.append((name: "Authorization", value: "Bearer \(bearer)")) }
        var body = rawBody
        if let json {
            body = try JSONSerialization.data(withJSONObject: json)
            headers.append((name: "Content-Type", value: "application/json"))
        }
        return try await CurlHTTPClient.shared.send(
            HTTPRequest(method: method, url: baseURL + path, headers: headers, body: body, timeout: timeout))
    }

    func register(name: String = "test", registrationKey: String? = nil) async throws -> TestDevice {
        let response = try await http("POST", "/v1/devices", bearer: registrationKey, json: ["name": name, "platform": "linux"])
        guard response.status == 201 else { throw TestFailure("register: \(response.status) \(response.text)") }
        let body = try JSONDecoder().decode([String: String].self, from: response.body)
        return TestDevice(id: body["device_id"] ?? "", token: body["token"] ?? "", secret: body["secret"] ?? "")
    }

    /// `message` is the FCM `message` object; the target token is filled in.
    func send(to device: TestDevice, _ message: [String: Any] = ["data": ["k": "v"]], project: String = testProject, key: String? = testSenderKey) async throws -> HTTPResponse {
        var message = message
        message["token"] = device.token
        return try await http("POST", "/v1/projects/\(project)/messages:send", bearer: key, json: ["message": message])
    }

    func poll(_ device: TestDevice, query: String = "after=0") async throws -> PollBody {
        let response = try await http("GET", "/v1/devices/\(device.id)/messages?\(query)", bearer: device.secret)
        guard response.status == 200 else { throw TestFailure("poll: \(response.status) \(response.text)") }
        return try JSONDecoder().decode(PollBody.self, from: response.body)
    }
}

/// Starts a relay on a fresh state directory (or PostgreSQL database), runs `body`, and always stops the relay and
/// removes the directory.
func withRelay<T>(on backend: TestBackend = .sqlite, registrationKey: String? = nil, serviceAccountKeys: [ServiceAccountKey] = [],
                  publicURL: String? = nil, maximumQueuedPerDevice: Int = RelayConfig.defaultMaximumQueuedPerDevice,
                  webPushRateLimits: WebPushRateLimits = WebPushRateLimits(),
                  _ body: (TestRelay) async throws -> T) async throws -> T {
    let directory = try makeStateDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let database = switch backend {
    case .sqlite: RelayDatabase.sqlite(directory: directory)
    case .postgres: try await PostgresScope.freshDatabase()
    }
    let relay = try await TestRelay.start(
        database: database, registrationKey: registrationKey, serviceAccountKeys: serviceAccountKeys, publicURL: publicURL,
        maximumQueuedPerDevice: maximumQueuedPerDevice, webPushRateLimits: webPushRateLimits)
    do {
        let result = try await body(relay)
        try await relay.stop()
        return result
    } catch {
        try? await relay.stop()
        throw error
    }
}

func makeStateDirectory() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("pushrelay-test-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

struct TestDevice: Sendable {
    var id: String
    var token: String
    var secret: String
}

struct PollBody: Decodable, Sendable {
    struct Message: Decodable, Sendable {
        var seq: Int64
        var id: String
        var data: [String: String]
        var notification: [String: String]?
        var priority: String
        var sent_at: String
        var expires_at: String
    }

    var messages: [Message]
    var next: Int64
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The parsed `error` object of an error response.
func errorObject(_ response: HTTPResponse) throws -> [String: Any] {
    guard let object = try JSONSerialization.jsonObject(with: response.body) as? [String: Any],
          let error = object["error"] as? [String: Any]
    else { throw TestFailure("not an error body: \(response.text)") }
    return error
}

/// `details[0].errorCode` of an FCM error response.
func fcmErrorCode(_ response: HTTPResponse) throws -> String? {
    let details = try errorObject(response)["details"] as? [[String: Any]]
    return details?.first?["errorCode"] as? String
}
