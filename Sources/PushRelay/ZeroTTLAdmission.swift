import Logging

/// A message with TTL 0 is "now or never" (FCM's `ttl: "0s"`, Web Push's `TTL: 0`): it is kept only for a device
/// that is polling, and then only as long as the poll takes to hand it over.
struct ZeroTTLAdmission: Sendable {
    /// How long a TTL 0 message stays readable for the poll it is handed to.
    static let deliveryWindowMilliseconds: Int64 = 5_000

    let waiters: PollWaiters
    let metrics: RelayMetrics
    /// Several instances share the store: the device's poll may wait on another one, which this one cannot see, so a
    /// TTL 0 message always gets the delivery window.
    let pollsMayWaitElsewhere: Bool

    /// The message as it is to be stored; nil when it is dropped (counted as expired) because nobody is polling.
    func admit(_ outgoing: OutgoingMessage, deviceID: String, logger: Logger) -> OutgoingMessage? {
        guard outgoing.ttlMilliseconds == 0 else { return outgoing }
        guard pollsMayWaitElsewhere || waiters.hasPoll(deviceID: deviceID) else {
            metrics.add(.expired)
            logger.info("ttl 0 message dropped: device not polling", metadata: ["device_id": "\(deviceID)"])
            return nil
        }
        var kept = outgoing
        kept.ttlMilliseconds = Self.deliveryWindowMilliseconds
        return kept
    }
}
