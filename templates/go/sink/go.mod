module {{name}}

go 1.25

require github.com/copycat-connect/copycat/guest-sdk/go v0.0.0

// The Copycat Go SDK, from the Copycat checkout this project was created
// with. build.sh rewrites the path when COPYCAT_HOME points elsewhere.
replace github.com/copycat-connect/copycat/guest-sdk/go => {{copycat_home}}/guest-sdk/go
