import Logging
import PostgresNIO
import ServiceLifecycle

/// Wakes this instance's long-polls for sends committed on any instance: one connection outside the pool LISTENs
/// on `pushrelay_wake`, whose payload is the device id. When the connection drops, it is opened again with backoff;
/// meanwhile polls and sends still work and only wake-ups from other instances wait, so once it is back every
/// waiting poll reads again, in case a send to its device went unannounced.
struct PostgresWakeListener: Sendable {
    let settings: PostgresSettings
    let waiters: PollWaiters
    let logger: Logger

    private static let initialBackoff = Duration.milliseconds(100)
    private static let maximumBackoff = Duration.seconds(5)

    /// Returns when its task is cancelled.
    func run() async {
        var backoff = Self.initialBackoff
        var lostConnection = false
        while !Task.isCancelled {
            do {
                let connection = try await settings.connect(logger: logger)
                do {
                    let notifications = try await connection.listen(PostgresRelayStore.wakeChannel)
                    if lostConnection {
                        logger.notice("wake-up channel back: PostgreSQL LISTEN on \(settings)")
                        waiters.notifyAll()
                    }
                    backoff = Self.initialBackoff
                    for try await notification in notifications {
                        waiters.notify(deviceID: notification.payload)
                    }
                } catch {
                    try? await connection.close()
                    throw error
                }
                try? await connection.close()
            } catch where Task.isCancelled {
                return
            } catch {
                logger.warning("wake-up channel down, retrying in \(backoff): \(PostgresErrorText(error).text); polls on this instance miss sends to other instances until it is back")
            }
            lostConnection = true
            try? await Task.sleep(for: backoff)
            backoff = min(backoff * 2, Self.maximumBackoff)
        }
    }
}

/// What an instance on PostgreSQL runs beside its HTTP server: the wake-up listener and the TTL sweep. When it
/// ends (after the server, at shutdown), it closes the store's connection pool.
struct PostgresRelayService: Service {
    let store: PostgresRelayStore
    let waiters: PollWaiters
    let onExpired: @Sendable (Int) -> Void
    let logger: Logger

    /// How often expired messages are deleted; polls never return one in between.
    static let sweepInterval = Duration.seconds(1)

    func run() async {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    await PostgresWakeListener(settings: store.settings, waiters: waiters, logger: logger).run()
                }
                group.addTask { await sweep() }
            }
        }
        store.close()
    }

    private func sweep() async {
        while (try? await Task.sleep(for: Self.sweepInterval)) != nil {
            do {
                onExpired(try await store.deleteExpiredMessages(now: nowMilliseconds()))
            } catch where Task.isCancelled {
                return
            } catch is StoreUnavailable {
                // The store's outage log has said so, once.
            } catch {
                logger.warning("\(error)")
            }
        }
    }
}
