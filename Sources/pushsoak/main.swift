import CommandSupport

await CommandEntry.main(PushSoak.self, name: "pushsoak")
