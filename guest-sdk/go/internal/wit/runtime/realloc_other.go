//go:build !wasip1

package wit_runtime

func release() {}
