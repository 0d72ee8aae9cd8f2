import CommandSupport

await CommandEntry.main(PushBench.self, name: "pushbench")
