module github.com/copycat-connect/copycat/guest-sdk/go

// Go 1.24 brought //go:wasmexport; the generated bindings use Go 1.25
// language features. The SDK has no dependencies outside the standard
// library (see internal/wit/README.md for why).
go 1.25
