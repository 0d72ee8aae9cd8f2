// libFuzzer's driver, exported by the runtime that -sanitize=fuzzer links in. SwiftPM gives executables its own
// `main`, so libFuzzer's is never run: each target's `<Module>_main` starts the driver through this instead.
#pragma once
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
