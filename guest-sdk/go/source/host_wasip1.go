//go:build wasip1

package source

import (
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/imports/copycat_connector_offsets"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/imports/copycat_connector_transactions"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/glue"
)

func readOffsets(partitions []string) map[string]string {
	out := map[string]string{}
	if len(partitions) == 0 {
		return out
	}
	for _, p := range copycat_connector_offsets.Read(partitions) {
		out[glue.String(p.Partition)] = glue.String(p.Offset)
	}
	glue.Release() // the strings the host returned are copied
	return out
}

func commitTransaction() { copycat_connector_transactions.Commit() }
func abortTransaction()  { copycat_connector_transactions.Abort() }
