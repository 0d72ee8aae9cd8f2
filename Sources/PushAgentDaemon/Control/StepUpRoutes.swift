import ControlAPI
import Hummingbird

/// `POST /v1/stepups`, `GET /v1/stepups/{id}?wait=`, `DELETE /v1/stepups/{id}`, `GET /v1/jwks` (docs/stepup.md). Registered after
/// `ControlRoutes`, whose middleware (browser refusal, error bodies) then applies here too.
struct StepUpRoutes: Sendable {
    let stepUps: StepUpService

    func register(on router: Router<PeerContext>) {
        router.post("/v1/stepups") { request, context in
            // Any peer may ask (a request for approval); approving stays with the writers of ControlRoutes.
            let peer = try await context.peer()
            let body = try await request.decodeJSON(StepUpRequest.self)
            return try JSONResponse.ok(try await stepUps.create(body, peer: peer), status: .created)
        }
        router.get("/v1/stepups/:id") { request, context in
            let wait = try request.uri.queryParameters.get("wait").map { raw in
                guard let seconds = Int(raw) else { throw ControlError(.invalidArgument, "wait must be a number of seconds, not '\(raw)'") }
                return seconds
            } ?? 0
            return try JSONResponse.ok(try await stepUps.collect(try context.parameters.require("id"), wait: wait,
                                                                 peer: try await context.peer()))
        }
        router.delete("/v1/stepups/:id") { _, context in
            try JSONResponse.ok(try await stepUps.withdraw(try context.parameters.require("id"), peer: try await context.peer()))
        }
        router.get("/v1/jwks") { _, _ in try JSONResponse.ok(try await stepUps.keySet()) }
    }
}
