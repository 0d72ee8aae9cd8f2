import ClusterHarness
import ControlClient
import ControlWire
import Foundation
import Logging
@testable import PushAgentDaemon
@testable import PushAgentCore
import PushAgentStore
import ServiceLifecycle

/// The daemon's real parts (`AgentServices`, the real `ControlServer` on a Unix socket, a real SQLite store) in the
/// test's own process, driven through the control client. No relay and no push source runs: what a test needs
/// pending it commits to the store as ingest would.
struct InProcessAgent {
    let agent: AgentServices
    let client: ControlClient
    let directory: String

    var store: AgentStore { agent.store }

    static func with(configure: (inout AgentConfig) -> Void = { _ in },
                     _ body: (InProcessAgent) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("agent-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var config = AgentConfig.defaults(systemMode: false, environment: [:])
        config.stateDirectory = directory
        config.socketPath = directory + "/pushagentd.sock"
        // An answer to an unreachable provider is returned while still being sent, not after its retries.
        config.answerWaitSeconds = 0.2
        configure(&config)
        let logger = Logger(label: "in-process-agent")
        let agent = AgentServices(store: try AgentStore(directory: directory), config: LiveConfig(config), logger: logger)
        let (listening, ready) = AsyncStream.makeStream(of: Void.self)
        // Handed over bound, as systemd's socket activation does: binding a path itself, the server sets the umask,
        // which is the whole test process's and would make other tests' files private meanwhile.
        let listener = ControlListener.activated(fd: try ListeningSocket.unix(at: config.socketPath), path: config.socketPath)
        let server = ControlServer(listener: listener, responder: agent.responder,
                                   socketMode: config.socketMode, limits: ControlConnectionLimits(config),
                                   logger: logger) { ready.yield() }
        let group = ServiceGroup(services: [server], logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            for await _ in listening { break }
            defer { Task { await group.triggerGracefulShutdown() } }
            try await body(InProcessAgent(agent: agent, client: ControlClient(socketPath: config.socketPath),
                                          directory: directory))
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    /// An account as enrollment leaves it; its provider is never reached unless a test answers for it.
    func addAccount(provider: Provider = .forgerock, id: String = "acc_\(UUID().uuidString.prefix(8))") async throws
        -> Account {
        let account = Account(id: id, provider: provider, issuer: "Example", name: "alice", createdAt: Date(),
                              hasTOTP: false)
        let credentials = ForgeRockCredentials(mechanismUid: id, sharedSecret: Data(repeating: 7, count: 32),
                                               authenticationURL: "http://127.0.0.1:9/auth",
                                               registrationURL: "http://127.0.0.1:9/reg", userId: "alice")
        try await store.addAccount(account, lookupKey: id, credentials: try JSONEncoder().encode(credentials), totp: nil)
        return account
    }

    /// A pending approval as ingest commits one; its answer goes to a provider address nothing listens on.
    func pending(_ kind: ApprovalKind, of account: Account, numbers: [String]? = nil) async throws -> Approval {
        let notification = ForgeRockNotification(
            messageId: "AUTHENTICATE:\(UUID())", mechanismUid: account.id,
            challenge: Data(repeating: 1, count: 32).base64EncodedString(), ttlSeconds: 120, cookie: nil,
            issuedAt: Date(), text: nil, pushType: kind == .number ? .challenge : kind == .verify ? .biometric : .default,
            numbers: numbers, contextInfo: nil, userId: nil)
        let draft = ApprovalDraft(
            provider: account.provider, accountId: account.id, kind: kind, numbers: numbers, title: "Sign in?",
            message: "Sign in to Example", context: ApprovalContext(user: account.name), requestedAt: Date(),
            expiresAt: Date().addingTimeInterval(120), dedupeKey: UUID().uuidString,
            answerContext: try JSONEncoder().encode(notification))
        let outcomes = try await store.commitMessages([MessageCommit(
            source: .poll(key: "test:\(UUID())"), result: .success(.approval(draft)), provider: account.provider)])
        guard case .created(let approval)? = outcomes.first else { throw HarnessError("not created: \(outcomes)") }
        return approval
    }
}
