//go:build wasip1

package dynamic

import "github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/imports/copycat_dynamic_context"

func requestTaskReconfiguration() { copycat_dynamic_context.RequestTaskReconfiguration() }
func raiseError(message string)   { copycat_dynamic_context.RaiseError(message) }
