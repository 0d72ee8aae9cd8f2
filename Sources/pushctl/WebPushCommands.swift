import ArgumentParser
import ControlClient
import ControlWire
import Foundation

struct WebPush: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webpush",
        abstract: "Web Push for scripts and UnifiedPush apps: any Web Push sender reaches them through the relay (docs/webpush.md).",
        discussion: "Each user sees and uses only the subscriptions it made; root sees everyone's.",
        subcommands: [Subscribe.self, List.self, Remove.self, Listen.self, Distributor.self])

    struct Subscribe: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a Web Push subscription and print it as a browser's PushSubscription JSON.",
            discussion: "Give the printed endpoint and keys to the sender (pywebpush, the webpush library, any RFC 8030 server): it encrypts for the keys, whose private half stays in pushagentd. Exits 5 when you already have a subscription of that name, 2 for a name that is not allowed, 1 when the relay cannot be reached (the message says what to check).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The subscription's name, yours to listen with: 1 to 64 letters, digits, '.', '_' or '-'.")
        var name: String

        func run() async throws {
            try await global.run { client in try Output.json(try await client.webPushSubscribe(name: name)) }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List your Web Push subscriptions: the app, endpoint, messages received and waiting, last delivery.",
            discussion: "APP is the UnifiedPush app a subscription was registered for through the distributor (docs/webpush.md), - for a script's. An endpoint the relay has forgotten (pushagentd registered with the relay anew) is shown as such: an app's is made again by the distributor, a script's by removing and subscribing again.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.show({ try await $0.webPushSubscriptions() }) { listing in
                if listing.subscriptions.isEmpty { return Output.say("no Web Push subscriptions (make one with pushctl webpush subscribe NAME)") }
                Output.table(["NAME", "UID", "APP", "RECEIVED", "WAITING", "LAST DELIVERY", "ENDPOINT"], listing.subscriptions.map {
                    [$0.name, "\($0.ownerUid)", $0.app?.service ?? "-", "\($0.received)", "\($0.undelivered)",
                     $0.lastDeliveryAt.map { Output.relative($0) } ?? "-", $0.stale ? Self.forgotten($0) : $0.endpoint]
                })
            }
        }

        static func forgotten(_ subscription: WebPushSubscriptionsResponse.Subscription) -> String {
            subscription.app == nil ? "(forgotten by the relay: remove and subscribe again)" : "(forgotten by the relay: the distributor makes it again)"
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a Web Push subscription at the relay (its senders get 410 Gone) and here, with its waiting messages.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The subscription's name.") var name: String

        func run() async throws {
            try await global.show(ids: .webPushSubscription, { try await $0.webPushRemove(name: name) }) { removed in
                Output.say("removed Web Push subscription \(removed.name) (\(removed.undelivered) waiting messages dropped)")
            }
        }
    }

    struct Listen: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print each message of a Web Push subscription, decrypted, as one JSON line, and acknowledge it.",
            discussion: "A line is {\"id\", \"received_at\", \"urgency\", \"topic\", and \"text\" (UTF-8) or \"base64\"}; a body that does not decrypt has \"error\" instead. A message is acknowledged once its line is written, so one the listener did not print comes again at the next listen. Runs until interrupted.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The subscription's name.") var name: String
        @Flag(help: "Exit after the first batch (nothing when none arrives within --wait): for scripts and tests.")
        var once = false
        @Option(help: "Seconds each request waits for a message, 0 to 30.") var wait = WebPushMessagesResponse.maximumWait

        func validate() throws {
            guard (0...WebPushMessagesResponse.maximumWait).contains(wait) else {
                throw ValidationError("--wait must be 0 to \(WebPushMessagesResponse.maximumWait) seconds")
            }
        }

        func run() async throws {
            try await global.run(ids: .webPushSubscription) { client in
                repeat {
                    let messages = try await client.webPushMessages(name: name, wait: wait)
                    guard !messages.isEmpty else { continue }
                    // Written straight to the descriptor, not buffered, before they are acknowledged: a listener
                    // killed after the acknowledgement has printed them all.
                    for message in messages {
                        let line = Output.terminalSafe(json: String(decoding: try ControlJSON.encoder().encode(ListenLine(message)), as: UTF8.self))
                        FileHandle.standardOutput.write(Data((line + "\n").utf8))
                    }
                    try await client.webPushAcknowledge(name: name, ids: messages.map(\.id))
                } while !once
            }
        }
    }

    /// A message as `listen` prints it: the text when there is one, else the bytes; the topic null when none.
    struct ListenLine: Encodable {
        let message: WebPushMessagesResponse.Message
        init(_ message: WebPushMessagesResponse.Message) { self.message = message }

        enum CodingKeys: String, CodingKey { case id, receivedAt = "received_at", urgency, topic, text, base64, error }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(message.id, forKey: .id)
            try container.encode(message.receivedAt, forKey: .receivedAt)
            try container.encode(message.urgency, forKey: .urgency)
            try container.encode(message.topic, forKey: .topic)
            if let text = message.text {
                try container.encode(text, forKey: .text)
            } else if let base64 = message.base64 {
                try container.encode(base64, forKey: .base64)
            }
            try container.encodeIfPresent(message.error, forKey: .error)
        }
    }
}
