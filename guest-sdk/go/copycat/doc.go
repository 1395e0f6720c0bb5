// Package copycat is the part of the Copycat Go SDK shared by source and
// sink connectors: configuration ([Config], [Reader]), plugin descriptions
// ([PluginInfo], [ConfigKey]), the [Connector] interface and errors that
// map to the WIT `connector-error` variants ([Configf], [Retriablef],
// [Fatalf]).
//
// A connector is a WebAssembly component implementing one of the two worlds
// of the `copycat:connector@0.1.0` contract (wit/connector/ in the Copycat
// repository). Write it as a Go `main` package that registers itself from
// an init function with [github.com/copycat-connect/copycat/guest-sdk/go/source.Export]
// or [github.com/copycat-connect/copycat/guest-sdk/go/sink.Export]; the SDK owns
// the generated bindings and the canonical-ABI glue. Build it with
// GOOS=wasip1 GOARCH=wasm -buildmode=c-shared, then wrap the core module into
// a component with wasm-tools (guest-sdk/go/componentize.sh does both).
//
// Nothing in this package needs WebAssembly: connector logic built on it can
// be unit-tested natively with `go test`.
package copycat
