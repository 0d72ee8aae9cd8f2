import ControlWire
import CurlHTTP
import Foundation
import PushAgentCore

/// Why a control call failed, in the terms pushctl turns into exit codes.
public enum ControlClientError: Error, CustomStringConvertible {
    /// The daemon could not be reached at all. `searched`: every place looked at, when nobody named the socket.
    case unreachable(socketPath: String, cause: String, searched: [String] = [])
    /// The daemon answered with an error body.
    case api(status: Int, ControlError)
    /// The daemon answered something that is not the control API.
    case badResponse(String)

    public var description: String {
        switch self {
        case .unreachable(let path, let cause, let searched):
            "cannot reach pushagentd at \(path): \(cause). "
                + Self.otherPlaces(searched, besides: path) + Self.unreachableHint(socketPath: path)
        case .api(_, let error): error.message
        case .badResponse(let what): "unexpected answer from pushagentd: \(what)"
        }
    }

    /// The other places looked at and what each held: "no daemon" says nothing unless it says where.
    static func otherPlaces(_ searched: [String], besides path: String) -> String {
        let others = searched.filter { $0 != path }
        guard !others.isEmpty else { return "" }
        return "Also looked at: " + others.map { "\($0) (\(SocketProbe.problem(at: $0) ?? "a socket that accepts connections"))" }
            .joined(separator: ", ") + ". "
    }

    /// A socket this user may not open needs group membership, not a daemon start.
    static func unreachableHint(socketPath: String) -> String {
        var info = stat()
        if stat(socketPath, &info) == 0, access(socketPath, R_OK | W_OK) != 0 {
            let group = getgrgid(info.st_gid).map { String(cString: $0.pointee.gr_name) } ?? "gid \(info.st_gid)"
            return "Only its owner and the members of group \(group) may use it: ask an admin to add you (usermod -aG \(group) $USER, then log in again)"
        }
        return "Is the daemon running? (start it with `systemctl start pushagentd`, `systemctl --user start pushagentd`, or point --socket / PUSHAGENT_SOCKET at its socket)"
    }
}

/// The client library for pushagentd's control API; pushctl is a thin face over it.
public struct ControlClient: Sendable {
    public let socketPath: String
    /// The places `ControlSocket.resolve` looked at, for an error that lists them.
    public let searched: [String]
    private let http: CurlHTTPClient
    private let timeout: Duration

    public init(socketPath: String, searched: [String] = [], http: CurlHTTPClient = .shared, timeout: Duration = .seconds(30)) {
        self.socketPath = socketPath
        self.searched = searched
        self.http = http
        self.timeout = timeout
    }

    /// The socket `ControlSocket.resolve` finds (`explicit` wins), remembering where it looked.
    public init(resolving explicit: String?, http: CurlHTTPClient = .shared) {
        let resolution = ControlSocket.resolve(explicit: explicit)
        self.init(socketPath: resolution.path, searched: resolution.searched, http: http)
    }

    /// Says why the socket could not be used, in the socket's terms rather than curl's ("port 80").
    func unreachable(_ error: HTTPClientError) -> ControlClientError {
        let cause: String
        if case .timedOut = error {
            cause = "it accepted the connection but did not answer in time"
        } else {
            cause = SocketProbe.problem(at: socketPath) ?? "\(error)"
        }
        return .unreachable(socketPath: socketPath, cause: cause, searched: searched)
    }

    public func status() async throws -> StatusResponse { try await get("/v1/status") }
    public func accounts() async throws -> [Account] { try await (get("/v1/accounts") as AccountsResponse).accounts }
    public func enroll(uri: String, name: String? = nil, fcmApp: String? = nil) async throws -> Account {
        try await call("POST", "/v1/accounts", body: EnrollRequest(uri: uri, name: name, fcmApp: fcmApp))
    }
    public func removeAccount(_ id: String) async throws -> Account { try await call("DELETE", "/v1/accounts/\(escape(id))") }
    public func code(account id: String) async throws -> CodeResponse { try await get("/v1/accounts/\(escape(id))/code") }
    public func approvals(state: ApprovalState? = nil) async throws -> [Approval] {
        let query = state.map { "?state=\($0.rawValue)" } ?? ""
        return try await (get("/v1/approvals" + query) as ApprovalsResponse).approvals
    }
    public func approval(_ id: String) async throws -> Approval { try await get("/v1/approvals/\(escape(id))") }
    /// `timeout` overrides the client's: an approve that polkit checks waits while the user answers its dialog.
    public func approve(_ id: String, number: String? = nil, userVerified: Bool? = nil,
                        password: String? = nil, timeout: Duration? = nil) async throws -> Approval {
        try await call("POST", "/v1/approvals/\(escape(id))/approve",
                       body: ApproveRequest(number: number, userVerified: userVerified, password: password), timeout: timeout)
    }
    public func deny(_ id: String, reason: DenyReason? = nil) async throws -> Approval {
        try await call("POST", "/v1/approvals/\(escape(id))/deny", body: DenyRequest(reason: reason))
    }
    public func history(limit: Int = 50) async throws -> [HistoryEntry] {
        try await (get("/v1/history?limit=\(limit)") as HistoryResponse).entries
    }

    /// The daemon's event stream, one event per NDJSON line, until the daemon stops or the caller's task is cancelled.
    public func events() async throws -> AsyncThrowingStream<ControlEvent, any Error> {
        let lines = try await eventLines()
        return AsyncThrowingStream { continuation in
            let reader = Task {
                do {
                    for try await line in lines {
                        do { continuation.yield(try ControlJSON.decoder().decode(ControlEvent.self, from: line)) }
                        catch { throw ControlClientError.badResponse("an event that is not JSON: \(error)") }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in reader.cancel() }
        }
    }

    /// The event stream's raw NDJSON lines, for `--json` output.
    public func eventLines() async throws -> AsyncThrowingStream<Data, any Error> {
        // The stream is open-ended: only the connection is bounded in time.
        let request = HTTPRequest(url: "http://localhost/v1/events", unixSocketPath: socketPath,
                                  timeout: .seconds(100 * 365 * 86_400), connectTimeout: .seconds(3))
        let response: HTTPStreamResponse
        do { response = try await http.stream(request) }
        catch let error as HTTPClientError { throw unreachable(error) }
        guard response.status == 200 else {
            var body = Data()
            for try await chunk in response.body { body.append(chunk) }
            throw Self.failure(status: response.status, body: body)
        }
        return response.lines
    }

    /// The raw JSON of a GET, for `--json` output.
    public func rawGet(_ path: String) async throws -> Data { try await perform("GET", path, body: nil) }

    func get<T: Decodable>(_ path: String, timeout: Duration? = nil) async throws -> T {
        try decode(try await perform("GET", path, body: nil, timeout: timeout))
    }

    func call<T: Decodable>(_ method: String, _ path: String) async throws -> T {
        try decode(try await perform(method, path, body: nil))
    }

    func call<T: Decodable, B: Encodable>(_ method: String, _ path: String, body: B, timeout: Duration? = nil) async throws -> T {
        try decode(try await perform(method, path, body: try ControlJSON.encoder().encode(body), timeout: timeout))
    }

    private func decode<T: Decodable>(_ data: Data) throws -> T {
        do { return try ControlJSON.decoder().decode(T.self, from: data) }
        catch { throw ControlClientError.badResponse("\(error)") }
    }

    /// `timeout` overrides the client's for one call (a long-poll holds the request open on purpose).
    private func perform(_ method: String, _ path: String, body: Data?, timeout: Duration? = nil) async throws -> Data {
        let request = HTTPRequest(method: method, url: "http://localhost" + path,
                                  headers: body == nil ? [] : [(name: "Content-Type", value: "application/json")],
                                  body: body, unixSocketPath: socketPath, timeout: timeout ?? self.timeout,
                                  connectTimeout: .seconds(3))
        let response: HTTPResponse
        do { response = try await http.send(request) }
        catch let error as HTTPClientError { throw unreachable(error) }
        guard (200..<300).contains(response.status) else { throw Self.failure(status: response.status, body: response.body) }
        return response.body
    }

    private static func failure(status: Int, body: Data) -> ControlClientError {
        if let decoded = try? ControlJSON.decoder().decode(ErrorBody.self, from: body) {
            return .api(status: status, decoded.error)
        }
        return .badResponse("HTTP \(status): \(String(decoding: body.prefix(200), as: UTF8.self))")
    }

    func escape(_ id: String) -> String {
        id.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? id
    }
}
