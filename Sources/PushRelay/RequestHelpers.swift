import ConnectionGuards
import Foundation
import Hummingbird
import NIOCore
import NIOHTTP1

/// The credential of `Authorization: Bearer <credential>`; the scheme is case-insensitive (RFC 7235).
func bearerCredential(_ request: Request) -> String? {
    guard let value = request.headers[.authorization] else { return nil }
    let parts = value.split(separator: " ", maxSplits: 1)
    guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
    let credential = parts[1].trimmingCharacters(in: .whitespaces)
    return credential.isEmpty ? nil : credential
}

/// Why a request body could not be read; each API words it in its own error format.
enum BodyReadFailure: Error, Equatable {
    /// Larger than the endpoint reads (by its Content-Length, or by what arrived).
    case tooLarge(limit: Int)
    /// Ended before its Content-Length, or stopped arriving before the request deadline.
    case incomplete(reason: String)

    var message: String {
        switch self {
        case .tooLarge(let limit): "Request payload size exceeds the limit: \(limit) bytes."
        case .incomplete(let reason): "The request body is incomplete: \(reason) before all of it arrived."
        }
    }
}

/// Reads the whole body, refusing one whose Content-Length is already over `limit` without reading it.
func readBody(_ request: Request, limit: Int) async throws(BodyReadFailure) -> Data {
    if let declared = request.headers[.contentLength].flatMap({ Int($0) }), declared > limit {
        throw .tooLarge(limit: limit)
    }
    do {
        return Data(try await request.body.collect(upTo: limit).readableBytesView)
    } catch is NIOTooManyBytesError {
        throw .tooLarge(limit: limit)
    } catch let error as RequestDeadlineExceeded {
        throw .incomplete(reason: "\(error.timeout.secondsText) s passed")
    } catch HTTPParserError.invalidEOFState {
        throw .incomplete(reason: "the client closed its side")
    } catch {
        throw .incomplete(reason: "\(error)")
    }
}

/// An `application/x-www-form-urlencoded` body as name → value; nil when a name repeats or an escape is invalid
/// (RFC 6749 §3.2: "Request and response parameters MUST NOT be included more than once").
func urlEncodedForm(_ body: Data) -> [String: String]? {
    var fields: [String: String] = [:]
    for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
        let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard let name = formDecode(parts[0]), let value = formDecode(parts.count == 2 ? parts[1] : ""),
              fields.updateValue(value, forKey: name) == nil
        else { return nil }
    }
    return fields
}

private func formDecode(_ text: Substring) -> String? {
    text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
}
