import Foundation
import FuzzSupport
import HTTPTypes
import WebPushWire

@_cdecl("FuzzWebPushRequest_main")
func fuzzMain(_ argc: Int32, _ argv: FuzzArguments) -> Int32 { FuzzDriver.run(argc, argv, testWebPushRequest) }

/// A sender's request to the relay's push endpoint as `Name: value` header lines, then `#<body length>` when a line
/// says so. Reading the headers and checking VAPID must refuse with a status a push service gives, or accept within
/// the limits, never trap; a key check that passes implies the token verified with that key.
func testWebPushRequest(_ bytes: Data) {
    var headers = HTTPFields()
    var bodyLength: Int?
    for line in FuzzInput.text(bytes).split(separator: "\n") {
        if line.first == "#" { bodyLength = Int(line.dropFirst()); continue }
        guard let colon = line.firstIndex(of: ":"), let name = HTTPField.Name(String(line[..<colon])) else { continue }
        headers.append(HTTPField(name: name, value: String(line[line.index(after: colon)...].drop(while: { $0 == " " }))))
    }
    let statuses: Set<Int> = [400, 401, 403, 413, 415]
    do throws(WebPushRefusal) {
        let request = try WebPushRequest(headers: headers, bodyLength: bodyLength, maximumTTL: 86_400)
        precondition((0...86_400).contains(request.ttl))
        precondition((request.topic?.utf8.count ?? 0) <= WebPushRequest.maximumTopicLength)
        precondition((bodyLength ?? 0) <= WebPushRequest.maximumBodyLength)
    } catch {
        precondition(statuses.contains(error.status), "status \(error.status)")
    }
    let authorization = headers[.authorization]
    do throws(WebPushRefusal) {
        let vapid = try VAPIDAuthorization(header: authorization)
        _ = try? vapid?.verify(origin: "https://push.example.net", now: 1_800_000_000)
        let key = vapid?.publicKey
        try VAPIDAuthorization.authorize(authorization, subscriptionKey: key, origin: "https://push.example.net",
                                         now: 1_800_000_000)
        precondition(vapid != nil || key == nil)
    } catch {
        precondition(statuses.contains(error.status), "status \(error.status)")
    }
}
