import Foundation
import Hummingbird
import PushAgentCore

/// A minimal Flow access node REST API under `/flow` (the `flow` of the enrollment URIs the sim issues):
/// latest block, account with keys, transaction submission and results. Errors as Flow's `{"code", "message"}`.
struct FlowAccessRoutes: SimRoutes {
    static let prefix = "/flow"
    let sim: HyphenSim

    func add(to router: Router<BasicRequestContext>) {
        let group = router.group(RouterPath(stringLiteral: Self.prefix + "/v1"))
        group.get("/blocks") { request, _ in
            await reply {
                guard let height = request.uri.queryParameters["height"], height == "sealed" || height == "final" else {
                    throw HyphenFailure.badRequest("height must be 'sealed' or 'final' here")
                }
                return await sim.latestBlocks()
            }
        }
        group.get("/accounts/:address") { _, context in
            await reply { try await sim.flowAccount(context.parameters.get("address") ?? "") }
        }
        group.post("/transactions") { request, _ in
            await reply {
                let body: FlowREST.Transaction
                do throws(JSONReply.BadBody) { body = try await JSONReply.decode(FlowREST.Transaction.self, from: request) }
                catch { throw HyphenFailure.badRequest(error.message) }
                return try await sim.submit(body, now: Date())
            }
        }
        group.get("/transaction_results/:id") { _, context in
            await reply { try await sim.transactionResult(context.parameters.get("id") ?? "", now: Date()) }
        }
    }

    private func reply(_ body: () async throws -> some Encodable) async -> Response {
        do {
            return JSONReply.make(.ok, try await body())
        } catch {
            let failure = error as? HyphenFailure ?? HyphenFailure(status: 500, message: "\(error)")
            return JSONReply.make(.init(code: failure.status), FlowError(code: failure.status, message: failure.message))
        }
    }
}

/// Flow's REST error body.
private struct FlowError: Encodable {
    var code: Int
    var message: String
}
