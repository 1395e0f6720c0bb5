//go:build !wasip1

package dynamic

// TestContext plays the host's connector context in native builds (go
// test): it counts [RequestTaskReconfiguration] calls and keeps the
// messages of [RaiseError]. It does not exist in the component.
var TestContext struct {
	Reconfigurations int
	Errors           []string
}

func requestTaskReconfiguration() { TestContext.Reconfigurations++ }
func raiseError(message string)   { TestContext.Errors = append(TestContext.Errors, message) }
