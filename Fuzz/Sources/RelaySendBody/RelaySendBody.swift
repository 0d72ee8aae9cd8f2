import Foundation

/// The fuzz target's way in: the relay's types are internal, and stay so in the files shared with it.
public enum RelaySendBody {
    public struct Request { let parsed: FCMSendRequest }

    public static func parse(_ body: Data) throws -> Request { Request(parsed: try FCMSendRequest.parse(body)) }

    public static func payloadSize(_ request: Request) -> Int { FCMSendRequest.payloadSize(request.parsed.message) }

    /// The relay's JSON reader refuses at least what `JSONSerialization` refuses: what it reads, Foundation reads.
    public static func checkReaderAgainstFoundation(_ body: Data) {
        guard JSONReader.read(body) != nil else { return }
        if (try? JSONSerialization.jsonObject(with: body, options: .fragmentsAllowed)) == nil {
            fatalError("JSONReader read a document JSONSerialization refuses: \(Array(body))")
        }
    }
}
