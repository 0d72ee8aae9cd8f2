import Foundation

/// A file named on the command line, opened for reading, or why not in words a user can act on: a directory opens,
/// and reading it then failed with Foundation's "NSCocoaErrorDomain error 256", which names neither the path nor
/// the problem.
enum UserNamedFile {
    /// `origin`: how the path was given (`--uri-file PATH`); `expected`: what it should name.
    static func open(_ path: String, origin: String, expected: String) throws(UserNamedFileError) -> FileHandle {
        try refuseDirectory(path, origin: origin, expected: expected)
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw UserNamedFileError(description: "cannot read \(origin): \(String(cString: strerror(errno)))")
        }
        return handle
    }

    /// For a path read or written by other means (a picture for libzbar, a file to create).
    static func refuseDirectory(_ path: String, origin: String, expected: String) throws(UserNamedFileError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw UserNamedFileError(description: "\(origin) is a directory: give \(expected)")
        }
    }
}

struct UserNamedFileError: Error, CustomStringConvertible {
    let description: String
}
