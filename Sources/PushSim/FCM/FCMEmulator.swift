import Foundation
import PushAgentCore
import Synchronization

/// Google's side of FCM for web-push clients: GCM devices from check-in, GCM and FCM registrations, Firebase
/// installations, and per device the data messages not yet acknowledged over MCS. A message stays queued until the
/// device acknowledges it (a selective ack, or its id in a later login), so a reconnect redelivers it. In memory, or
/// kept in a state file across restarts as Google keeps it (FCMEmulatorState), written before each answer.
actor FCMEmulator {
    struct Device {
        let securityToken: UInt64
        var queue: [McsProto_DataMessageStanza] = []
        var session: MCSSessionOutbox?
    }

    struct GCMRegistration: Codable {
        let androidID: UInt64
        let subtype: String
    }

    struct WebRegistration {
        let gcmToken: String
        let p256dh: Data
        let auth: Data
        var sender: WebPushSender { WebPushSender(receiverPublicKey: p256dh, authSecret: auth) }
    }

    private var devices: [UInt64: Device] = [:]
    private var gcmRegistrations: [String: GCMRegistration] = [:]
    private var installationsByRefresh: [String: String] = [:]
    private var installationAuthTokens: Set<String> = []
    private var webRegistrations: [String: WebRegistration] = [:]
    private var sentCount = 0
    private var nextMisbehaviour: (mode: MCSMisbehaviour, sessions: Int)?
    /// How sends are encrypted: `aesgcm` as FCM's data messages, or `aes128gcm` marked as Chromium reads it.
    private var contentCoding = ContentCoding.aesgcm
    private let stateFile: String?
    let events: SimEvents

    /// An emulator with the state `stateFile` holds (none: empty, and kept in memory only).
    init(events: SimEvents, stateFile: String? = nil) throws {
        self.events = events
        self.stateFile = stateFile
        guard let stateFile, FileManager.default.fileExists(atPath: stateFile) else { return }
        let state = try FCMEmulatorState.read(stateFile)
        devices = state.devices.mapValues { Device(securityToken: $0.securityToken, queue: $0.queue) }
        gcmRegistrations = state.gcmRegistrations
        installationsByRefresh = state.installationsByRefresh
        installationAuthTokens = state.installationAuthTokens
        webRegistrations = state.webRegistrations.mapValues { WebRegistration(gcmToken: $0.gcmToken, p256dh: $0.p256dh, auth: $0.auth) }
        sentCount = state.sentCount
    }

    /// Writes the state file, if there is one; called after every change, before the change is answered.
    private func persist() throws {
        guard let stateFile else { return }
        try FCMEmulatorState(
            devices: devices.mapValues { .init(securityToken: $0.securityToken, queue: $0.queue) },
            gcmRegistrations: gcmRegistrations, installationsByRefresh: installationsByRefresh,
            installationAuthTokens: installationAuthTokens,
            webRegistrations: webRegistrations.mapValues { .init(gcmToken: $0.gcmToken, p256dh: $0.p256dh, auth: $0.auth) },
            sentCount: sentCount).write(stateFile)
    }

    // MARK: registration

    func checkIn(renewing id: UInt64?, securityToken: UInt64?) throws -> GCMDevice {
        if let id, let securityToken, devices[id]?.securityToken == securityToken {
            return GCMDevice(androidID: id, securityToken: securityToken)
        }
        let device = GCMDevice(androidID: UInt64.random(in: 1...UInt64(Int64.max)),
                               securityToken: UInt64.random(in: 1...UInt64(Int64.max)))
        devices[device.androidID] = Device(securityToken: device.securityToken)
        try persist()
        events.emit("fcm check-in: device \(device.androidID)")
        return device
    }

    func isKnown(_ device: GCMDevice) -> Bool { devices[device.androidID]?.securityToken == device.securityToken }

    func registerGCM(_ device: GCMDevice, subtype: String) throws -> String {
        let token = "gcm" + SimRandom.bytes(8).hex + ":APA91b" + SimRandom.bytes(32).hex
        gcmRegistrations[token] = GCMRegistration(androidID: device.androidID, subtype: subtype)
        try persist()
        return token
    }

    /// A new installation: its refresh token and first auth token.
    func createInstallation(fid: String, appID: String) throws -> (refreshToken: String, authToken: String) {
        let refresh = "1_" + SimRandom.bytes(24).hex
        installationsByRefresh[refresh] = fid
        let auth = try newAuthToken()
        events.emit("fcm installation: app \(appID)")
        return (refresh, auth)
    }

    func refreshInstallation(refreshToken: String) throws -> String? {
        installationsByRefresh[refreshToken] == nil ? nil : try newAuthToken()
    }

    private func newAuthToken() throws -> String {
        let token = "fis" + SimRandom.bytes(24).hex
        installationAuthTokens.insert(token)
        try persist()
        return token
    }

    enum WebRegistrationFailure: Error { case badAuth, unknownGCMToken, badKeys, unsaved(String) }

    func registerWebPush(authToken: String, gcmToken: String, p256dh: Data, auth: Data) throws(WebRegistrationFailure)
        -> String {
        guard installationAuthTokens.contains(authToken) else { throw .badAuth }
        guard gcmRegistrations[gcmToken] != nil else { throw .unknownGCMToken }
        guard p256dh.count == 65, auth.count == 16 else { throw .badKeys }
        let token = SimRandom.bytes(6).hex + ":APA91b" + SimRandom.bytes(40).hex
        webRegistrations[token] = WebRegistration(gcmToken: gcmToken, p256dh: p256dh, auth: auth)
        do { try persist() } catch { throw .unsaved("\(error)") }
        events.emit("fcm registration: token \(SimEvents.short(token))")
        return token
    }

    // MARK: sending

    enum SendFailure: Error { case unregistered }

    /// FCM HTTP v1's send to a registration token: encrypted for the registration (aesgcm, as FCM does for web
    /// push), queued on its device, and written to its MCS session when one is logged in. Returns the message id.
    func send(data: [String: String], to token: String, from sender: String) throws -> String {
        let (registration, gcm) = try registered(token)
        sentCount += 1
        let messageID = "\(sentCount)-" + SimRandom.bytes(6).hex
        let payload = try JSONSerialization.data(withJSONObject: [
            "data": data, "from": sender, "priority": "high", "fcmMessageId": messageID,
        ], options: [.sortedKeys])
        var stanza = contentCoding == .aes128gcm
            ? Self.dataStanza(aes128gcm: try registration.sender.encrypt(aes128gcm: payload), from: sender, subtype: gcm.subtype)
            : Self.dataStanza(try registration.sender.encrypt(aesgcm: payload), from: sender, subtype: gcm.subtype)
        stanza.id = messageID
        stanza.ttl = 2_419_200
        try enqueue(stanza, device: gcm.androidID)
        events.emit("fcm send: \(messageID) to \(SimEvents.short(token)) (\(devices[gcm.androidID]!.queue.count) unacknowledged)")
        return messageID
    }

    private func registered(_ token: String) throws -> (web: WebRegistration, gcm: GCMRegistration) {
        guard let registration = webRegistrations[token],
              let gcm = gcmRegistrations[registration.gcmToken], devices[gcm.androidID] != nil else {
            throw SendFailure.unregistered
        }
        return (registration, gcm)
    }

    private func enqueue(_ stanza: McsProto_DataMessageStanza, device androidID: UInt64) throws {
        devices[androidID]!.queue.append(stanza)
        try persist()
        devices[androidID]!.session?.send(.data(stanza))
    }

    /// Not Google's: a stanza whose body and app data a test made itself (with another Web Push implementation),
    /// delivered to the registration's device as a send's would be.
    func deliver(rawData: Data, appData: [(String, String)], to token: String, from sender: String) throws {
        let gcm = try registered(token).gcm
        var stanza = Self.stanza(rawData, appData: [("google.source", "webpush"), ("subtype", gcm.subtype)] + appData,
                                 from: sender)
        stanza.id = stanza.persistentID
        try enqueue(stanza, device: gcm.androidID)
        events.emit("fcm deliver: \(stanza.persistentID) to \(SimEvents.short(token))")
    }

    /// The receiving keys a registration gave (`p256dh`, `auth`), for a test's own sender.
    func webPushKeys(token: String) -> (p256dh: Data, auth: Data)? {
        webRegistrations[token].map { ($0.p256dh, $0.auth) }
    }

    func useContentCoding(_ coding: ContentCoding) {
        contentCoding = coding
        events.emit("fcm content coding: \(coding)")
    }

    /// A web-push data stanza as FCM writes one: the encrypted body, its salt and sender key in the app data.
    static func dataStanza(_ sealed: WebPushSender.AESGCMMessage, from sender: String, subtype: String)
        -> McsProto_DataMessageStanza {
        stanza(sealed.body, appData: [("google.source", "webpush"), ("encryption", "salt=" + paddedBase64URL(sealed.salt)),
                                      ("subtype", subtype), ("crypto-key", "dh=" + paddedBase64URL(sealed.senderPublicKey))],
               from: sender)
    }

    /// An `aes128gcm` one, marked as Chromium's GCM encryption provider reads it: the whole RFC 8188 body in
    /// `raw_data` (its header holds the salt and the sender's key) and `content-encoding` in the app data.
    static func dataStanza(aes128gcm body: Data, from sender: String, subtype: String) -> McsProto_DataMessageStanza {
        stanza(body, appData: [("google.source", "webpush"), ("content-encoding", "aes128gcm"), ("subtype", subtype)],
               from: sender)
    }

    private static func stanza(_ body: Data, appData: [(String, String)], from sender: String) -> McsProto_DataMessageStanza {
        var stanza = McsProto_DataMessageStanza()
        stanza.from = sender
        stanza.category = "org.chromium.linux"
        stanza.persistentID = "0:\(Int(Date().timeIntervalSince1970 * 1000))%" + SimRandom.bytes(8).hex
        stanza.rawData = body
        stanza.sent = Int64(Date().timeIntervalSince1970 * 1000)
        stanza.appData = appData
            .map { key, value in
                var item = McsProto_AppData()
                item.key = key
                item.value = value
                return item
            }
        return stanza
    }

    /// FCM writes these fields URL-safe and padded, which is what firebase-messaging decodes.
    static func paddedBase64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
    }

    // MARK: MCS sessions

    /// The next `sessions` logins' sessions misbehave as asked; every device is sent a Close so that it logs in
    /// again.
    func misbehave(_ misbehaviour: MCSMisbehaviour, sessions: Int = 1) {
        nextMisbehaviour = (misbehaviour, sessions)
        events.emit("fcm misbehave: the next \(sessions) MCS session(s) will be \(misbehaviour.rawValue)")
        for device in devices.values { device.session?.send(.close(McsProto_Close())) }
    }

    func takeMisbehaviour() -> MCSMisbehaviour? {
        guard let (mode, sessions) = nextMisbehaviour else { return nil }
        nextMisbehaviour = sessions > 1 ? (mode, sessions - 1) : nil
        return mode
    }

    /// A login: the device must be known with this token. Ids it lists as received are acknowledged; whatever stays
    /// queued is sent again on the new session, which replaces any earlier one.
    func logIn(androidID: UInt64, securityToken: UInt64, received: [String], session: MCSSessionOutbox) throws -> Bool {
        guard devices[androidID]?.securityToken == securityToken else { return false }
        try acknowledge(received, device: androidID)
        devices[androidID]!.session?.finish()
        devices[androidID]!.session = session
        events.emit("fcm mcs login: device \(androidID), \(devices[androidID]!.queue.count) to deliver")
        for stanza in devices[androidID]!.queue { session.send(.data(stanza)) }
        return true
    }

    func acknowledge(_ ids: [String], device androidID: UInt64) throws {
        guard !ids.isEmpty else { return }
        let before = devices[androidID]?.queue.count ?? 0
        devices[androidID]?.queue.removeAll { ids.contains($0.persistentID) }
        if let after = devices[androidID]?.queue.count, after < before {
            try persist()
            events.emit("fcm ack: device \(androidID), \(before - after) acknowledged, \(after) unacknowledged")
        }
    }

    func loggedOut(androidID: UInt64, session: MCSSessionOutbox) {
        if devices[androidID]?.session === session { devices[androidID]!.session = nil }
    }

    func unacknowledgedCount(token: String) -> Int? {
        guard let registration = webRegistrations[token], let gcm = gcmRegistrations[registration.gcmToken] else {
            return nil
        }
        return devices[gcm.androidID]?.queue.count
    }
}

/// Where the emulator writes a logged-in device's stanzas: its connection's outbound stream.
final class MCSSessionOutbox: Sendable {
    enum Outgoing: Sendable {
        case stanza(MCSMessage)
        /// Bytes as they are, for a misbehaving server.
        case raw(Data)
    }

    private let continuation: AsyncStream<Outgoing>.Continuation
    private let finished = Mutex(false)
    let stream: AsyncStream<Outgoing>

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: Outgoing.self)
    }

    func send(_ message: MCSMessage) { continuation.yield(.stanza(message)) }
    func send(raw bytes: Data) { continuation.yield(.raw(bytes)) }

    func finish() {
        finished.withLock { $0 = true }
        continuation.finish()
    }

    var isFinished: Bool { finished.withLock { $0 } }
}
