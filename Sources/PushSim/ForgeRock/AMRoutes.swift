import Foundation
import Hummingbird
import PushAgentCore

/// AM's `POST /openam/json/push/sns/message?_action=register|authenticate|refresh`, checked the way AM checks them.
struct AMRoutes: SimRoutes {
    let sim: ForgeRockSim

    func add(to router: Router<BasicRequestContext>) {
        router.post(RouterPath(stringLiteral: ForgeRockSim.endpointPath)) { request, _ in
            await handle(request)
        }
    }

    private func handle(_ request: Request) async -> Response {
        if await sim.isDown { return Self.error(.serviceUnavailable, "AM is down (pushsim outage)") }
        let action = request.uri.queryParameters["_action"].map(String.init)
        if action == "refresh" { return await refresh(request) }
        guard action == "register" || action == "authenticate" else {
            return Self.badRequest("unsupported _action '\(action ?? "")' (register, authenticate or refresh)")
        }
        let body: ForgeRockMessageBody
        do {
            body = try await JSONReply.decode(ForgeRockMessageBody.self, from: request)
        } catch {
            return Self.badRequest(error.message)
        }
        if let problem = Self.headerProblem(request, needsCookie: true) {
            // Logged as an answer too, so whoever waits for one learns why it never came.
            if action == "authenticate" { await sim.refuse(body.messageId, reason: problem) }
            return Self.badRequest(problem)
        }
        do {
            if action == "register" {
                try await sim.register(body, now: Date())
            } else {
                try await sim.authenticate(body, now: Date())
            }
            return JSONReply.make(.ok, [String: String]())
        } catch {
            return Self.badRequest(error.message)
        }
    }

    /// A new push token for a registered mechanism: no message id, no cookie (no push is being answered).
    private func refresh(_ request: Request) async -> Response {
        if let problem = Self.headerProblem(request, needsCookie: false) { return Self.badRequest(problem) }
        let body: ForgeRockTokenUpdate.Body
        do {
            body = try await JSONReply.decode(ForgeRockTokenUpdate.Body.self, from: request)
        } catch {
            return Self.badRequest(error.message)
        }
        do {
            try await sim.refresh(body)
            return JSONReply.make(.ok, [String: String]())
        } catch {
            return Self.badRequest(error.message)
        }
    }

    /// AM requires its API version, and the sim requires the load-balancer cookie it handed out in `l` on the calls
    /// that carry one.
    private static func headerProblem(_ request: Request, needsCookie: Bool) -> String? {
        let version = request.headers.first { $0.name.canonicalName == "accept-api-version" }?.value ?? ""
        let parts = Set(version.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        guard parts.isSuperset(of: ["resource=1.0", "protocol=1.0"]) else {
            return "Accept-API-Version must be 'resource=1.0, protocol=1.0', not '\(version)'"
        }
        let cookies = request.headers[values: .cookie].flatMap { $0.split(separator: ";") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard !needsCookie || cookies.contains(ForgeRockSim.cookie) else {
            return "the load-balancer cookie \(ForgeRockSim.cookie) is missing from the Cookie header"
        }
        return nil
    }

    private static func badRequest(_ message: String) -> Response { error(.badRequest, message) }

    /// AM's error body.
    private static func error(_ status: HTTPResponse.Status, _ message: String) -> Response {
        struct AMError: Encodable {
            var code: Int
            var reason: String
            var message: String
        }
        return JSONReply.make(status, AMError(code: status.code, reason: status.reasonPhrase, message: message))
    }
}
