import CFuzzDriver
import Foundation

/// The one entry point every fuzz target goes through: `<Module>_main` hands its test to `run`, which starts
/// libFuzzer's driver with it. libFuzzer calls back through a C function pointer, which cannot capture, so the
/// test waits in a global for the trampoline.
public enum FuzzDriver {
    public typealias Test = (Data) -> Void

    nonisolated(unsafe) private static var test: Test?

    public static func run(_ argc: CInt, _ argv: FuzzArguments, _ test: @escaping Test) -> CInt {
        self.test = test
        var count = argc
        var arguments = argv
        return LLVMFuzzerRunDriver(&count, &arguments) { bytes, size in
            // libFuzzer reads only this return value: 0 keeps the input, -1 would keep it out of the corpus.
            FuzzDriver.test?(bytes.map { Data(bytes: $0, count: size) } ?? Data())
            return 0
        }
    }
}

/// `argv` as `<Module>_main` receives it.
public typealias FuzzArguments = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
