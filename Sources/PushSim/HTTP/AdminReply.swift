import Foundation
import Hummingbird

/// A refusal of the admin API (or of a role's provider endpoints): `status` is the HTTP status to answer with.
struct AdminFailure: Error {
    var status: Int
    var code: String
    var message: String

    static func invalidArgument(_ message: String) -> AdminFailure {
        AdminFailure(status: 400, code: "invalid_argument", message: message)
    }
}

/// The admin routes' common shape: JSON in, JSON out, failures as the project's error body.
enum AdminReply {
    /// Long-polls are capped like the relay's, so a client cannot hold a request open indefinitely.
    static let maximumWait = 60

    static func reply(_ body: () async throws -> some Encodable) async -> Response {
        do {
            return JSONReply.make(.ok, try await body())
        } catch let failure as AdminFailure {
            return JSONReply.error(failure.status, code: failure.code, failure.message)
        } catch let bad as JSONReply.BadBody {
            return JSONReply.error(400, code: "invalid_argument", bad.message)
        } catch {
            return JSONReply.error(500, code: "internal", "\(error)")
        }
    }

    /// A non-negative whole-number query parameter.
    static func integer(_ value: Substring?, name: String) throws(AdminFailure) -> Int? {
        guard let value else { return nil }
        guard let number = Int(value), number >= 0 else {
            throw .invalidArgument("'\(name)' must be a non-negative whole number")
        }
        return number
    }

    /// `?after=N&wait=S` of an answers long-poll, the wait capped.
    static func cursor(_ request: Request) throws(AdminFailure) -> (after: Int, wait: Duration) {
        let query = request.uri.queryParameters
        let after = try integer(query["after"], name: "after") ?? 0
        let wait = min(try integer(query["wait"], name: "wait") ?? 0, maximumWait)
        return (after, .seconds(wait))
    }
}

/// The admin routes' two recurring kinds: a JSON command, and a page of a role's log.
extension RouterGroup {
    /// `POST path`: the JSON body (an empty body is `empty`, when given) goes to `handle`, whose result is the reply.
    @discardableResult
    func postJSON<Body: Decodable & Sendable>(
        _ path: RouterPath, empty: Body? = nil,
        _ handle: @escaping @Sendable (_ body: Body, _ context: Context) async throws -> some Encodable
    ) -> Self {
        post(path) { request, context in
            await AdminReply.reply { try await handle(try await JSONReply.decode(Body.self, from: request, empty: empty), context) }
        }
    }

    /// `GET path?after=N&wait=S`: the log's entries after N (waiting up to S seconds for one), as `page` wraps them.
    @discardableResult
    func getPage<Entry: Sendable>(_ path: RouterPath, of log: AnswerLog<Entry>,
                                  _ page: @escaping @Sendable ([Entry]) -> some Encodable) -> Self {
        get(path) { request, _ in
            await AdminReply.reply {
                let (after, wait) = try AdminReply.cursor(request)
                return page(await log.answers(after: after, wait: wait))
            }
        }
    }
}
