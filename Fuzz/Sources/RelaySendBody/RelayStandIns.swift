import RelayWire

// FCMSendRequest.swift, JSONReader.swift and JSONText.swift are the relay's own files (symlinked).
// The two types below are the rest of what FCMSendRequest.swift needs besides RelayWire; their real homes,
// RelayErrors.swift and Store/RelayStorage.swift, are in a module that imports SwiftNIO and GRDB, which would make the
// fuzz build several minutes longer. Same members as the real ones: if those change in a way FCMSendRequest.swift
// relies on, this module stops compiling, and `make test` says so.

struct FCMError: Error, Equatable {
    var httpStatus: Int
    var status: String
    var message: String
    var errorCode: String?

    static func invalidArgument(_ message: String) -> Self {
        .init(httpStatus: 400, status: "INVALID_ARGUMENT", message: message, errorCode: "INVALID_ARGUMENT")
    }
}

struct OutgoingMessage: Sendable, Equatable {
    var data: [String: String]
    var notification: [String: String]?
    var priority: MessagePriority
    var collapseKey: String?
    var ttlMilliseconds: Int64
}
