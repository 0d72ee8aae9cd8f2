/// The one version of pushagent's programs: `--version`, `GET /v1/status`, and the .deb (the Makefile reads it here).
public enum PushAgentVersion {
    public static let string = "0.1.0"
}
