import Foundation
import PushAgentCore

extension GuardianSim {
    /// `POST /sim/guardian/push`: a sign-in transaction for a device, pushed as Guardian's flat FCM data map (§10.3),
    /// or an earlier transaction's map again.
    func push(_ request: API.PushRequest, now: Date) async throws(AdminFailure) -> API.PushResponse {
        let transaction: Transaction
        if let id = request.transactionId {
            guard let known = transactions[id] else {
                throw AdminFailure(status: 404, code: "not_found", message: "no transaction '\(id)'")
            }
            transaction = known
        } else {
            transaction = try newTransaction(request, now: now)
            transactions[transaction.id] = transaction
            transactionsByToken[transaction.txtkn] = transaction.id
        }
        guard let device = devices[transaction.device]?.record, !device.deleted else {
            throw AdminFailure(status: 409, code: "conflict", message: "device \(transaction.device) was unenrolled")
        }
        // A replay of an expired transaction is still delivered: whether the agent refuses it is the test.
        let ttl = max(60, Int(transaction.expiresAt.timeIntervalSince(now).rounded(.up)))
        do {
            try await relay.send(token: device.pushToken, data: transaction.data, ttlSeconds: ttl)
        } catch {
            throw AdminFailure(status: 502, code: "upstream", message: error.description)
        }
        transactions[transaction.id]?.pushes += 1
        let kind = request.transactionId != nil ? " again" : transaction.unknownDevice ? " naming an unknown device" : ""
        events.emit("guardian: sent push \(transaction.id) to \(device.account)'s device \(device.id)\(kind)")
        return API.PushResponse(transactionId: transaction.id, device: device.id, txtkn: transaction.txtkn,
                                challenge: transaction.challenge, data: transaction.data,
                                expiresAt: transaction.expiresAt)
    }

    private func newTransaction(_ request: API.PushRequest, now: Date) throws(AdminFailure) -> Transaction {
        let deviceId = try device(named: request.device)
        let ttl = request.ttl ?? 300
        guard ttl > 0 else { throw .invalidArgument("ttl must be positive") }
        let age = request.age ?? 0
        guard age >= 0 else { throw .invalidArgument("age must not be negative") }
        let txtkn = SimRandom.bytes(32).base64URLUnpadded
        let challenge = SimRandom.bytes(16).base64URLUnpadded
        let started = now.addingTimeInterval(-TimeInterval(age))
        let dai = request.unknownDevice == true ? "dev_" + Self.alphanumerics(16) : deviceId
        let data = [
            "txtkn": txtkn, "dai": dai, "c": challenge,
            "d": started.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)),
            "sh": request.hostname ?? URLComponents(string: publicURL)?.host ?? "127.0.0.1",
            "s": Self.json(["b": ["n": request.browser ?? "Firefox", "v": request.browserVersion ?? "121.0"],
                            "os": ["n": request.os ?? "Ubuntu", "v": request.osVersion ?? "22.04"]]),
            "l": Self.json(["n": request.location ?? "Istanbul, TR", "lat": request.latitude ?? "41.0082",
                            "long": request.longitude ?? "28.9784"]),
            "txlnkid": "cns_" + Self.alphanumerics(16),
        ]
        return Transaction(id: "tx_" + Self.alphanumerics(16), device: deviceId, unknownDevice: dai != deviceId,
                           txtkn: txtkn, challenge: challenge, data: data,
                           expiresAt: started.addingTimeInterval(TimeInterval(ttl)))
    }

    /// `s` and `l` are JSON objects written as strings in FCM's map, the coordinates as strings (Android's tests).
    private static func json(_ object: some Encodable) -> String {
        String(decoding: (try? SimAdminAPI.encoder.encode(object)) ?? Data("{}".utf8), as: UTF8.self)
    }

    /// The named device, or the most recently enrolled one still enrolled.
    private func device(named id: String?) throws(AdminFailure) -> String {
        if let id {
            guard let device = devices[id] else { throw AdminFailure(status: 404, code: "not_found", message: "no device '\(id)'") }
            guard !device.record.deleted else {
                throw AdminFailure(status: 409, code: "conflict", message: "device \(id) was unenrolled")
            }
            return id
        }
        guard let latest = deviceList().last(where: { !$0.deleted }) else {
            throw AdminFailure(status: 409, code: "conflict", message: "no device is enrolled; enroll one first")
        }
        return latest.id
    }
}
