// Empty: SwiftPM builds a C target only when it has a source file; the declaration is in the header.
