import ClusterHarness
import Foundation
import Testing

/// The frame of the tests against a real privacyIDEA or eduMFA: a cluster, the server started in its directory
/// (`<cluster>/<its product name in lower case>`, given to `start`), and the daemon started with `pollSeconds` between its scheduled polls; then `body`.
/// Everything is stopped afterwards; on failure the daemon's and the server's output (the server as `name`) is printed.
func withPrivacyIDEAFamilyServer<Server: PrivacyIDEAFamilyServer>(
    _ name: String, pollSeconds: Int, start: (_ directory: String) async throws -> Server,
    _ body: (Cluster, Server) async throws -> Void
) async throws {
    let cluster = try await Cluster()
    var server: Server?
    do {
        let started = ContinuousClock.now
        server = try await start(cluster.directory + "/" + Server.product.lowercased())
        print("\(name) ready after \(ContinuousClock.now - started)")
        try await cluster.startDaemon(extraEnvironment: ["PUSHAGENT_PRIVACYIDEA_POLL_SECONDS": String(pollSeconds)])
        try await body(cluster, try #require(server))
    } catch {
        print("pushagentd output:\n\(cluster.daemon?.text ?? "")\n\(name) output:\n\(server?.process.text ?? "")")
        await server?.stop()
        await cluster.stopAll()
        throw error
    }
    await server?.stop()
    await cluster.stopAll()
}
