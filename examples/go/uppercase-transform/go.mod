module uppercase-transform

go 1.25

require github.com/copycat-connect/copycat/guest-sdk/go v0.0.0

// The Copycat Go SDK, in the Copycat checkout (../../..); it has no other
// dependencies. build.sh points this at $COPYCAT_HOME when that is set.
replace github.com/copycat-connect/copycat/guest-sdk/go => ../../../guest-sdk/go
