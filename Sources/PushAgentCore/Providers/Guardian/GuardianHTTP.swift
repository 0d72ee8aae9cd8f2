import Foundation

/// How the agent talks to Guardian's device API: JSON, and `Auth0-Client` naming the client as every SDK does
/// (base64url of `{"name", "version"}`).
enum GuardianHTTP {
    static let clientName = "pushagent"
    static let clientVersion = "1"
    static let userAgent = "pushagent (Linux)"

    static var auth0Client: String {
        Data(#"{"name":"\#(clientName)","version":"\#(clientVersion)"}"#.utf8).base64URLUnpadded
    }

    /// A call without a body (DELETE).
    static func request(_ method: String, _ url: String, authorization: String) -> OutboundRequest {
        OutboundRequest(method: method, url: url, headers: [
            .init("Authorization", authorization), .init("Auth0-Client", auth0Client), .init("User-Agent", userAgent),
        ], body: Data())
    }

    /// A call with a JSON body.
    static func request(_ method: String, _ url: String, authorization: String, json body: some Encodable) throws
        -> OutboundRequest {
        var request = request(method, url, authorization: authorization)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        request.body = try encoder.encode(body)
        request.headers.append(.init("Content-Type", "application/json"))
        return request
    }
}
