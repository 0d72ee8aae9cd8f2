import RelayWire

/// One definition, in RelayWire (which the relay shares); the agent's code names it through the core.
public typealias JSONValue = RelayWire.JSONValue
