import ControlClient
import ControlWire
import Foundation
import PushAgentCore
import UnifiedPushBus

/// One app's messages, from the daemon to the app's connector: in order, one at a time, each acknowledged to the
/// daemon only after the connector took it (its `Message` call returned), so one the app did not take comes again.
struct AppDelivery: Sendable {
    private let task: Task<Void, Never>

    static func start(name: String, app: UnifiedPushApp, distributor: UnifiedPushDistributor) -> AppDelivery {
        AppDelivery(task: Task { await Loop(name: name, app: app, distributor: distributor).run() })
    }

    func stop() { task.cancel() }

    private struct Loop {
        let name: String
        let app: UnifiedPushApp
        let distributor: UnifiedPushDistributor
        var client: ControlClient { distributor.client }

        func run() async {
            var backoff = Backoff(maximum: distributor.settings.maximumBackoff)
            // Taken by the app but not yet acknowledged (the daemon was away): acknowledged before anything else, and
            // never handed to the app again when the daemon hands them out again meanwhile.
            var taken: [String] = []
            while !Task.isCancelled {
                do {
                    if !taken.isEmpty {
                        try await client.webPushAcknowledge(name: name, ids: taken)
                        taken = []
                    }
                    let messages = try await client.webPushMessages(name: name, wait: WebPushMessagesResponse.maximumWait)
                    for message in messages where !Task.isCancelled {
                        guard let body = message.encrypted.flatMap({ Data(base64Encoded: $0) }) else { continue }
                        let outcome = await distributor.bus.message(to: app.service, version: app.version, token: app.token,
                                                                    body: body, id: message.id,
                                                                    timeout: distributor.settings.deliveryTimeout)
                        guard outcome == .delivered else { throw Undelivered(outcome: outcome) }
                        taken.append(message.id)
                        try await client.webPushAcknowledge(name: name, ids: taken)
                        taken = []
                    }
                    backoff.reset()
                } catch ControlClientError.api(_, let error) where error.code == .notFound {
                    // Removed elsewhere (pushctl webpush remove, another distributor): the app is told, as the
                    // specification asks, so that it registers again if it still wants messages.
                    distributor.log("\(app.service)'s registration \(name) is gone; telling the app")
                    _ = await distributor.bus.unregistered(to: app.service, version: app.version, token: app.token)
                    distributor.stopDelivery(to: name)
                    return
                } catch {
                    let wait = backoff.next()
                    distributor.log("\(name): \(error); trying again in \(wait)")
                    try? await Task.sleep(for: wait)
                }
            }
        }
    }

    private struct Undelivered: Error, CustomStringConvertible {
        let outcome: ConnectorDelivery
        var description: String {
            switch outcome {
            case .appNotFound(let why): "the app is neither running nor installed (\(why)); its messages wait"
            case .failed(let why): "the app did not take a message (\(why)); it comes again"
            case .delivered: "delivered"
            }
        }
    }
}

/// Doubling waits from one second up to `maximum`.
struct Backoff {
    let maximum: Duration
    private var current: Duration = .seconds(1)

    init(maximum: Duration) { self.maximum = maximum }

    mutating func next() -> Duration {
        defer { current = min(current * 2, maximum) }
        return current
    }

    mutating func reset() { current = .seconds(1) }
}
