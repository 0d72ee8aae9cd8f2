import Crypto
import Foundation

extension WebPushKeys {
    /// Keys kept as bytes (a subscription's, sealed in the agent's store) made usable again.
    public init(privateKeyBytes: Data, authSecret: Data) throws {
        self.init(privateKey: try P256.KeyAgreement.PrivateKey(rawRepresentation: privateKeyBytes), authSecret: authSecret)
    }
}
