import ControlWire
import Hummingbird

/// `POST /v1/stepups`, `GET /v1/stepups/{id}?wait=`, `DELETE /v1/stepups/{id}`, `GET /v1/jwks` (docs/stepup.md).
struct StepUpRoutes: ControlRouteCollection {
    let stepUps: StepUpService

    func addRoutes(to v1: RouterGroup<PeerContext>) {
        v1.post("stepups") { request, context in
            // Any peer may ask (a request for approval); approving stays with the writers (ApprovalRoutes).
            let peer = try await context.peer()
            let body = try await request.decodeJSON(StepUpRequest.self)
            return try JSONResponse.ok(try await stepUps.create(body, peer: peer), status: .created)
        }
        v1.get("stepups/:id") { request, context in
            let wait = try request.uri.queryParameters.get("wait").map { raw in
                guard let seconds = Int(raw) else { throw ControlError(.invalidArgument, "wait must be a number of seconds, not '\(raw)'") }
                return seconds
            } ?? 0
            return try JSONResponse.ok(try await stepUps.collect(try context.parameters.require("id"), wait: wait,
                                                                 peer: try await context.peer()))
        }
        v1.delete("stepups/:id") { _, context in
            try JSONResponse.ok(try await stepUps.withdraw(try context.parameters.require("id"), peer: try await context.peer()))
        }
        v1.get("jwks") { _, _ in try JSONResponse.ok(try await stepUps.keySet()) }
    }
}
