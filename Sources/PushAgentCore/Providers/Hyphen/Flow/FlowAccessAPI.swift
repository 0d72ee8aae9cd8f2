import Foundation

/// The Flow access node REST calls the agent makes (fcl-js `transport-http`), described for the daemon to send.
public struct FlowAccessAPI: Sendable {
    public let baseURL: String

    public init(baseURL: String) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
    }

    /// `[Block]` with the latest sealed block: the reference block of a new transaction.
    public func latestSealedBlock() -> OutboundRequest { get("/v1/blocks?height=sealed") }

    /// The account with its keys, whose sequence numbers a proposer needs.
    public func account(_ address: FlowAddress) -> OutboundRequest { get("/v1/accounts/\(address.hex)?expand=keys") }

    public func submit(_ transaction: FlowTransaction) throws -> OutboundRequest {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return OutboundRequest(method: "POST", url: baseURL + "/v1/transactions",
                               headers: [.init("Content-Type", "application/json")],
                               body: try encoder.encode(FlowREST.Transaction(transaction)))
    }

    public func result(ofTransaction id: String) -> OutboundRequest { get("/v1/transaction_results/\(id)") }

    private func get(_ path: String) -> OutboundRequest {
        OutboundRequest(method: "GET", url: baseURL + path, headers: [], body: Data())
    }
}
