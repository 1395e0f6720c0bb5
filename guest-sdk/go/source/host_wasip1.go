//go:build wasip1

package source

import (
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/imports/copycat_connector_offsets"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/bindings/imports/copycat_connector_transactions"
	"github.com/copycat-connect/copycat/guest-sdk/go/internal/glue"
)

func readOffsets(partitions []string) map[string]string {
	out := map[string]string{}
	for _, p := range copycat_connector_offsets.Read(partitions) {
		out[glue.String(p.Partition)] = glue.String(p.Offset)
	}
	// The strings the host returned are copied. (Only called outside Poll,
	// whose batch memory is the SDK's own: nothing else is in the arena.)
	glue.Release()
	return out
}

func commitTransaction() { copycat_connector_transactions.Commit() }
func abortTransaction()  { copycat_connector_transactions.Abort() }
