// Package copycat is the part of the Copycat Go SDK shared by source and
// sink connectors and transforms: configuration ([Config], [Reader]),
// plugin descriptions ([PluginInfo], [ConfigKey]), the [Connector]
// interface, errors that map to the WIT `connector-error` variants
// ([Configf], [Retriablef], [Fatalf]), and typed data: Kafka Connect
// schemas ([Schema], [SchemaOf] for Go structs), record parts ([Payload]:
// raw bytes, typed or schemaless values) and the value encoding of
// wit/connector@0.3.0/batch.wit ([Encode], [Decode], [SchemaTable]).
//
// A connector is a WebAssembly component implementing one of the worlds of
// the `copycat:connector@0.3.0` contract (wit/connector@0.3.0/ in the
// Copycat repository), a transform the world of `copycat:transform@0.1.0`.
// Write it as a Go `main` package that registers itself from an init
// function with [github.com/copycat-connect/copycat/guest-sdk/go/source.Export],
// [github.com/copycat-connect/copycat/guest-sdk/go/sink.Export] or
// [github.com/copycat-connect/copycat/guest-sdk/go/transform.Export]; the SDK
// owns the generated bindings and the canonical-ABI glue. Build it with
// GOOS=wasip1 GOARCH=wasm -buildmode=c-shared, then wrap the core module into
// a component with wasm-tools (guest-sdk/go/componentize.sh does both).
//
// Nothing in this package needs WebAssembly: connector logic built on it can
// be unit-tested natively with `go test`.
package copycat
