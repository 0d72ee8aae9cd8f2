import ControlWire
import PushAgentCore

extension ControlClient {
    /// Asks the user to confirm a step-up; any program that can open the socket may ask.
    public func requestStepUp(_ request: StepUpRequest) async throws -> StepUp {
        try await call("POST", "/v1/stepups", body: request)
    }

    /// The step-up, once final or after `wait` seconds (at most 60); the answer only to the caller that asked.
    public func stepUp(_ id: String, wait: Int = 0) async throws -> StepUp {
        let query = wait > 0 ? "?wait=\(wait)" : ""
        return try await get("/v1/stepups/\(escape(id))\(query)", timeout: .seconds(wait + 15))
    }

    /// Takes back a step-up still waiting for the user (the caller no longer needs it); only the uid that asked may.
    public func withdrawStepUp(_ id: String) async throws -> StepUp {
        try await call("DELETE", "/v1/stepups/\(escape(id))")
    }

    /// The device's public keys that verify step-up receipts.
    public func signingKeys() async throws -> JWKSet { try await get("/v1/jwks") }
}
