/// The Flow network a Hyphen account lives on, with the endpoints and paymaster the SDKs use for it.
public enum HyphenChain: String, Codable, Sendable, CaseIterable {
    case mainnet = "flow-mainnet"
    case testnet = "flow-testnet"

    /// Hyphen's API (protocols.md §3.2).
    public var defaultAPIURL: String {
        switch self {
        case .mainnet: "https://api.hyphen.at"
        case .testnet: "https://api.dev.hyphen.at"
        }
    }

    /// The Flow access node's REST API.
    public var defaultAccessNodeURL: String {
        switch self {
        case .mainnet: "https://rest-mainnet.onflow.org"
        case .testnet: "https://rest-testnet.onflow.org"
        }
    }

    /// The account that pays for Hyphen's transactions and signs their envelope (`HyphenPayMasterKeySigner`).
    public var paymaster: FlowAddress {
        switch self {
        case .mainnet: FlowAddress(hex: "d998bea00bb8d39c")!
        case .testnet: FlowAddress(hex: "e22cea2c515f26e6")!
        }
    }
}
