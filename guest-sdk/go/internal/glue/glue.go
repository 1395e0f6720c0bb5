// Package glue converts between the SDK's Go types and the generated
// binding types, and turns Go errors and panics into WIT connector-errors.
// It is shared by the hand-written export packages under
// internal/bindings/exports/export_* and by the packages source and sink.
package glue

import (
	"runtime/debug"
	"strings"

	"github.com/copycat-connect/copycat/guest-sdk/go/copycat"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/imports/copycat_connector_types"
	witRuntime "github.com/copycat-connect/copycat/guest-sdk/go/internal/wit/runtime"
	witTypes "github.com/copycat-connect/copycat/guest-sdk/go/internal/wit/types"
)

type (
	// WITConfig is the generated form of a config: a list of pairs.
	WITConfig = []witTypes.Tuple2[string, string]
	// WITError is the generated connector-error variant.
	WITError = copycat_connector_types.ConnectorError
	// UnitResult is the generated result<_, connector-error>.
	UnitResult = witTypes.Result[witTypes.Unit, WITError]
)

// Values from the host (arguments of exports, results of imports) point
// into memory that is reused after [Release] (see internal/wit/runtime):
// every conversion below from generated types copies, and the SDK calls
// Release once a call's values are converted.

// Release frees the memory of the values the host passed in the current
// call. Call it only after converting (copying) all of them.
func Release() { witRuntime.Release() }

// Config converts (copies) a config from the host.
func Config(pairs WITConfig) copycat.Config {
	cfg := make(copycat.Config, len(pairs))
	for _, p := range pairs {
		cfg[strings.Clone(p.F0)] = strings.Clone(p.F1)
	}
	return cfg
}

// ToWIT converts a config for the host, keys sorted.
func ToWIT(cfg copycat.Config) WITConfig {
	keys := cfg.Keys()
	out := make(WITConfig, 0, len(keys))
	for _, k := range keys {
		out = append(out, witTypes.Tuple2[string, string]{F0: k, F1: cfg[k]})
	}
	return out
}

// Error maps a Go error to the WIT connector-error variant its kind names.
func Error(err error) WITError {
	kind, msg := copycat.Classify(err)
	switch kind {
	case copycat.KindConfig:
		return copycat_connector_types.MakeConnectorErrorConfig(msg)
	case copycat.KindRetriable:
		return copycat_connector_types.MakeConnectorErrorRetriable(msg)
	default:
		return copycat_connector_types.MakeConnectorErrorFatal(msg)
	}
}

// Result maps a value and an error to a WIT result.
func Result[T any](value T, err error) witTypes.Result[T, WITError] {
	if err != nil {
		return witTypes.Err[T, WITError](Error(err))
	}
	return witTypes.Ok[T, WITError](value)
}

// Unit maps an error to a WIT result<_, connector-error>.
func Unit(err error) UnitResult { return Result(witTypes.Unit{}, err) }

// Guard runs f, turning a panic into a fatal error (logged with its stack),
// so a bug in a connector fails its task with a message instead of trapping
// the instance.
func Guard(call string, f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			copycat.Logf(copycat.LevelError, "panic in %s: %v\n%s", call, r, debug.Stack())
			err = copycat.Fatalf("panic in %s: %v", call, r)
		}
	}()
	return f()
}

// NotStarted is the error of task calls made before a successful start.
var NotStarted = copycat.Fatalf("task not started")

// String copies a string from the host.
func String(s string) string { return strings.Clone(s) }

// PluginInfo converts a description for the host.
func PluginInfo(info copycat.PluginInfo, kind copycat_connector_types.ConnectorKind) copycat_connector_types.PluginInfo {
	return copycat_connector_types.PluginInfo{
		Name:        info.Name,
		Version:     info.Version,
		Kind:        kind,
		Description: info.Description,
		ConfigDef:   ConfigKeys(info.Config),
	}
}

// ConfigKeys converts a config definition for the host.
func ConfigKeys(def []copycat.ConfigKey) []copycat_connector_types.ConfigKey {
	keys := make([]copycat_connector_types.ConfigKey, 0, len(def))
	for _, k := range def {
		def := witTypes.None[string]()
		if k.Default != "" || k.EmptyDefault {
			def = witTypes.Some(k.Default)
		}
		keys = append(keys, copycat_connector_types.ConfigKey{
			Name:         k.Name,
			Type:         configType(k.Type),
			DefaultValue: def,
			Required:     k.Required,
			Doc:          k.Doc,
			Importance:   importance(k),
		})
	}
	return keys
}

func configType(t copycat.Type) copycat_connector_types.ConfigType {
	switch t {
	case copycat.TypeInt:
		return copycat_connector_types.ConfigType_Int
	case copycat.TypeLong:
		return copycat_connector_types.ConfigType_Long
	case copycat.TypeDouble:
		return copycat_connector_types.ConfigType_Double
	case copycat.TypeBoolean:
		return copycat_connector_types.ConfigType_Boolean
	case copycat.TypeList:
		return copycat_connector_types.ConfigType_List
	case copycat.TypePassword:
		return copycat_connector_types.ConfigType_Password
	default:
		return copycat_connector_types.ConfigType_String
	}
}

func importance(k copycat.ConfigKey) copycat_connector_types.Importance {
	switch k.Importance {
	case copycat.High:
		return copycat_connector_types.Importance_High
	case copycat.Medium:
		return copycat_connector_types.Importance_Medium
	case copycat.Low:
		return copycat_connector_types.Importance_Low
	}
	if k.Required {
		return copycat_connector_types.Importance_High
	}
	return copycat_connector_types.Importance_Medium
}

// Problems converts validation problems for the host.
func Problems(ps []copycat.Problem) []copycat_connector_types.ConfigProblem {
	out := make([]copycat_connector_types.ConfigProblem, len(ps))
	for i, p := range ps {
		out[i] = copycat_connector_types.ConfigProblem{Key: p.Key, Message: p.Message}
	}
	return out
}

// Configs converts task configs for the host.
func Configs(cfgs []copycat.Config) []WITConfig {
	out := make([]WITConfig, len(cfgs))
	for i, c := range cfgs {
		out[i] = ToWIT(c)
	}
	return out
}
