package copycat

// Type is the type of a config value, used by the host to check values and
// by operators' tooling for documentation.
type Type int

const (
	TypeString   Type = iota // any UTF-8 text
	TypeInt                  // a 32-bit signed integer
	TypeLong                 // a 64-bit signed integer
	TypeDouble               // a 64-bit float
	TypeBoolean              // true or false
	TypeList                 // comma-separated values
	TypePassword             // secret text: the host never logs or returns it
)

// Importance says how much an operator should care about a config key
// (Kafka Connect's ConfigDef.Importance).
type Importance int

const (
	// ImportanceDefault (the zero value) is High for required keys and
	// Medium for the others.
	ImportanceDefault Importance = iota
	High
	Medium
	Low
)

// ConfigKey declares one config key of a connector.
type ConfigKey struct {
	Name string
	Type Type
	// Default is the value used when the key is absent; "" means none,
	// unless EmptyDefault is set.
	Default string
	// EmptyDefault declares the empty string as the default (an optional
	// file name, an empty list), as Kafka Connect's ConfigDef default "".
	EmptyDefault bool
	// Required keys must be set by the operator; the host rejects a config
	// without them before the connector sees it.
	Required   bool
	Doc        string
	Importance Importance
}

// PluginInfo is what a connector says about itself in Describe. The kind
// (source or sink) is filled in by the SDK.
type PluginInfo struct {
	// Name is short and stable, e.g. "counter-source".
	Name    string
	Version string
	// Description is one line for operators: what moves from where to where.
	Description string
	// Config lists every key the connector understands.
	Config []ConfigKey
}

// Problem is one problem found by Validate, tied to the key at fault ("" for
// the config as a whole).
type Problem struct {
	Key     string
	Message string
}

// Connector is the connector-level contract, the same for sources and
// sinks. The host calls it on a dedicated instance that never runs tasks:
// keep no state in it that tasks rely on.
type Connector interface {
	// Describe must not fail and must not depend on any config.
	Describe() PluginInfo
	// Validate checks a config beyond what the declared keys already check
	// (the host checks required keys and value types first): one Problem
	// per key at fault, none when the config is good. [Reader.Problems]
	// gives exactly that.
	Validate(cfg Config) []Problem
	// TaskConfigs splits the work into at most maxTasks (>= 1) task
	// configs; each is passed to one task's start function.
	TaskConfigs(cfg Config, maxTasks int) ([]Config, error)
}

// Header is a Kafka record header: a key (non-empty UTF-8) and a value,
// raw bytes ([Raw]) or typed; a null Payload is a header without a value.
type Header struct {
	Key   string
	Value Payload
}
