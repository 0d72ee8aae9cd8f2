import CommandSupport

await CommandEntry.main(PushSimCommand.self, name: "pushsim")
