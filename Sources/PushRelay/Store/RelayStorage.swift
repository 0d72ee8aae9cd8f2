import RelayWire

/// What the relay keeps: devices, their message queues and the access tokens it issued. `SQLiteRelayStore` keeps it in
/// SQLite for one relay process; a shared database lets several relay processes serve one device population.
///
/// A send's message is durable when `enqueue` returns; a poll's acknowledgement may follow (losing it only delivers
/// again). Sequence numbers grow per device in the order messages become visible, so a device's cursor never hides a
/// message.
protocol RelayStorage: Sendable {
    /// Whether other relay instances serve the same devices, so that a device's poll may wait where this one cannot
    /// see it.
    var isShared: Bool { get }

    func registerDevice(name: String, platform: String) async throws -> DeviceRegistration
    func device(id: String) async throws -> StoredDevice?
    /// The device's credentials when `device(id:)` would return them without a read; nil otherwise.
    func cachedDevice(id: String) -> StoredDevice?
    func deviceID(forToken token: String) async throws -> String?
    /// What `deviceID(forToken:)` would return without a read; nil when only it can tell.
    func cachedDeviceID(forToken token: String) -> String?
    /// Also drops the device's pending messages.
    func deleteDevice(id: String) async throws -> Bool
    func deviceCount() async throws -> Int

    /// Returns nil when the device no longer exists; throws `DeviceQueueFull` (and changes nothing) when its queue
    /// is full.
    func enqueue(_ outgoing: OutgoingMessage, deviceID: String, now: Int64) async throws -> EnqueueResult?
    /// `enqueue` for a caller on an event loop, which waits in no task: `whenCommitted` gets what `enqueue` would return
    /// or throw, on any thread.
    func enqueue(_ outgoing: OutgoingMessage, deviceID: String, now: Int64,
                 whenCommitted: @escaping @Sendable (Result<EnqueueResult?, any Error>) -> Void)
    /// Acknowledges everything up to `after` (durable with the next commit, not necessarily on return), then
    /// returns the next live messages; nil when the device no longer exists. Throws `CursorAheadError` (and acknowledges nothing) for an `after` beyond what was delivered.
    func poll(deviceID: String, after: Int64, limit: Int, now: Int64) async throws -> PollResult?
    /// The next live messages after `after`, acknowledging nothing: for a poll woken by a send, after `poll`. Nil
    /// when the device no longer exists (deleted through another instance, which can only wake this one's polls).
    func messages(deviceID: String, after: Int64, limit: Int, now: Int64) async throws -> [RelayMessage]?
    /// What `messages` would return, when the store knows it without reading (the message a send just committed);
    /// nil when only `messages` can tell.
    func recentMessages(deviceID: String, after: Int64, now: Int64) -> [RelayMessage]?
    /// What `poll` would return with nothing to hand out, when the store knows it without reading (the poll
    /// acknowledging the message it was just handed); nil when only `poll` can tell.
    func pollFromMemory(deviceID: String, after: Int64, now: Int64) -> PollResult?

    /// Stores a new token and drops the expired ones.
    func storeAccessToken(digest: [UInt8], grant: AssertionVerifier.Grant, issuedAt: Int64, expiresAt: Int64) async throws
    /// The projects an unexpired token may send to; empty for an unknown or expired token.
    func accessTokenProjects(digest: [UInt8], now: Int64) async throws -> [String]
    /// At start: tokens issued under a key (or for a project) the configuration no longer registers stop working
    /// now, not at their expiry, so removing a leaked key from the config and restarting revokes it. Returns how many.
    func revokeAccessTokens(except registered: [(keyID: String, project: String)]) async throws -> Int

    /// Stores a Web Push subscription of the device, found again by the digest of its endpoint's token.
    func createWebPushSubscription(_ subscription: WebPushSubscription, tokenDigest: [UInt8]) async throws
    /// The subscription whose endpoint token has this digest; `.removed` also when its device was deleted.
    func webPushSubscription(tokenDigest: [UInt8]) async throws -> WebPushSubscriptionLookup
    /// The device's subscriptions that are not removed, oldest first.
    func webPushSubscriptions(deviceID: String) async throws -> [WebPushSubscription]
    /// Leaves a tombstone, so senders learn the subscription is gone (410); false when the device has no such
    /// live subscription.
    func removeWebPushSubscription(id: String, deviceID: String, now: Int64) async throws -> Bool
}

extension RelayStorage {
    /// For a store whose writes are async calls anyway (PostgreSQL's), the task is where it waits.
    func enqueue(_ outgoing: OutgoingMessage, deviceID: String, now: Int64,
                 whenCommitted: @escaping @Sendable (Result<EnqueueResult?, any Error>) -> Void) {
        Task {
            do { whenCommitted(.success(try await enqueue(outgoing, deviceID: deviceID, now: now))) }
            catch { whenCommitted(.failure(error)) }
        }
    }
}

struct StoredDevice: Sendable {
    var id: String
    var secretDigest: [UInt8]
}

/// The device has `limit` undelivered messages: it is not polling, or polls more slowly than messages come, and its
/// queue must not grow without bound.
struct DeviceQueueFull: Error {
    var limit: Int
}

struct EnqueueResult: Sendable {
    var message: RelayMessage
    /// Older undelivered messages with the same collapse key that this one replaced.
    var collapsed: Int
}

struct PollResult: Sendable {
    var messages: [RelayMessage]
    var acknowledged: Int
}
