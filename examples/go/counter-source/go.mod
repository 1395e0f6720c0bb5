module github.com/copycat-connect/copycat/examples/go/counter-source

go 1.25

require github.com/copycat-connect/copycat/guest-sdk/go v0.0.0

// The SDK lives in this repository (guest-sdk/go); it has no other dependencies.
replace github.com/copycat-connect/copycat/guest-sdk/go => ../../../guest-sdk/go
