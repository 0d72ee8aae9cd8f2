import Foundation
import Hummingbird
import PushAgentCore

/// Guardian's device API (protocols.md §10.2–9.5) under each of `GuardianSim.apiPrefixes`; the prefix a
/// call came in under is its API base, which every JWT's `aud` must name.
struct GuardianRoutes: SimRoutes {
    let sim: GuardianSim

    func add(to router: Router<BasicRequestContext>) {
        for prefix in GuardianSim.apiPrefixes {
            let api = prefix + "/api"
            router.post(RouterPath(stringLiteral: api + "/enroll")) { request, _ in
                await Self.reply {
                    let body = await Self.decode(GuardianEnrollmentBody.self, from: request)
                    let reply = try await sim.enroll(apiBase: await base(prefix), authorization: Self.authorization(request),
                                                     body: body, now: Date())
                    return JSONReply.make(.ok, reply)
                }
            }
            router.post(RouterPath(stringLiteral: api + "/resolve-transaction")) { request, _ in
                await Self.reply {
                    let body = await Self.decode(GuardianResolveBody.self, from: request)
                    try await sim.resolve(apiBase: await base(prefix), authorization: Self.authorization(request),
                                          body: body, now: Date())
                    return Response(status: .noContent)
                }
            }
            router.patch(RouterPath(stringLiteral: api + "/device-accounts/:id")) { request, context in
                await Self.reply {
                    let body = try await JSONReply.decode(GuardianDeviceUpdateBody.self, from: request)
                    let reply = try await sim.updateDevice(context.parameters.get("id") ?? "",
                                                           authorization: Self.authorization(request), body: body, now: Date())
                    return JSONReply.make(.ok, reply)
                }
            }
            router.delete(RouterPath(stringLiteral: api + "/device-accounts/:id")) { request, context in
                await Self.reply {
                    try await sim.deleteDevice(context.parameters.get("id") ?? "",
                                               authorization: Self.authorization(request), now: Date())
                    return Response(status: .noContent)
                }
            }
        }
    }

    private func base(_ prefix: String) async -> String {
        await sim.publicURL + prefix
    }

    /// The body, or why not, for the sim to refuse after the credential: a bad ticket or bearer is what Guardian
    /// would report first.
    private static func decode<Body: Decodable>(_ type: Body.Type, from request: Request) async
        -> Result<Body, JSONReply.BadBody> {
        do throws(JSONReply.BadBody) {
            return .success(try await JSONReply.decode(type, from: request))
        } catch {
            return .failure(error)
        }
    }

    private static func authorization(_ request: Request) -> String? {
        request.headers[.authorization]
    }

    /// The handler's response, or its refusal in Auth0's error shape.
    private static func reply(_ body: () async throws -> Response) async -> Response {
        do {
            return try await body()
        } catch let failure as GuardianFailure {
            return failure.response
        } catch let bad as JSONReply.BadBody {
            return GuardianFailure.invalidBody(bad.message).response
        } catch {
            return GuardianFailure(status: 500, errorCode: "server_error", message: "\(error)").response
        }
    }
}
