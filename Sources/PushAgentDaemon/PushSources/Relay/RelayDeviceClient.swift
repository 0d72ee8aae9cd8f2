import CurlHTTP
import Foundation
import RelayWire

enum RelayError: Error, CustomStringConvertible {
    /// The relay no longer knows this device: register again.
    case unknownDevice
    /// The relay never gave out the sequence number the poll acknowledged (`cursor_ahead`): start over at 0.
    case cursorAhead(String)
    case unauthorized(String)
    case http(Int, String)
    case transport(String)
    case badResponse(String)

    var description: String {
        switch self {
        case .unknownDevice: "the relay does not know this device"
        case .cursorAhead(let m): "the relay's sequence is behind this device's cursor: \(m)"
        case .unauthorized(let m): "the relay refused our credentials: \(m)"
        case .http(let status, let m): "the relay answered HTTP \(status): \(m)"
        case .transport(let m): m
        case .badResponse(let m): "unexpected answer from the relay: \(m)"
        }
    }
}

/// The device side of the relay's wire contract: register and long-poll.
struct RelayDeviceClient: Sendable {
    let baseURL: String
    let http: CurlHTTPClient

    func register(name: String, registrationKey: String?) async throws -> DeviceRegistration {
        var headers = [(name: "Content-Type", value: "application/json")]
        if let registrationKey { headers.append((name: "Authorization", value: "Bearer " + registrationKey)) }
        let body = try JSONSerialization.data(withJSONObject: ["name": name, "platform": "linux"])
        let response = try await send(HTTPRequest(method: "POST", url: baseURL + "/v1/devices", headers: headers, body: body))
        guard response.status == 201 || response.status == 200 else { throw error(from: response) }
        do { return try JSONDecoder().decode(DeviceRegistration.self, from: response.body) }
        catch { throw RelayError.badResponse("registration: \(error)") }
    }

    /// Long-polls for messages after `cursor`, which also acknowledges everything up to it.
    func poll(deviceId: String, secret: String, after cursor: Int64, waitSeconds: Int) async throws -> PollReply {
        let url = "\(baseURL)/v1/devices/\(deviceId)/messages?after=\(cursor)&wait=\(waitSeconds)&limit=100"
        let request = HTTPRequest(url: url, headers: [(name: "Authorization", value: "Bearer " + secret)],
                                  timeout: .seconds(waitSeconds + 15))
        let response = try await send(request)
        guard response.status == 200 else { throw error(from: response) }
        do { return try JSONDecoder().decode(PollReply.self, from: response.body) }
        catch { throw RelayError.badResponse("messages: \(error)") }
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        do { return try await http.send(request) }
        catch let error as HTTPClientError { throw RelayError.transport(error.description) }
    }

    func error(from response: HTTPResponse) -> RelayError {
        struct Body: Decodable { struct E: Decodable { var code: String?; var message: String? }; var error: E }
        let error = (try? JSONDecoder().decode(Body.self, from: response.body))?.error
        let message = error?.message ?? response.text.prefix(200).description
        switch response.status {
        case 404: return .unknownDevice
        case 409 where error?.code == "cursor_ahead": return .cursorAhead(message)
        case 401, 403: return .unauthorized(message)
        default: return .http(response.status, message)
        }
    }
}
