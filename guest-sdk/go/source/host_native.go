//go:build !wasip1

package source

// TestOffsets plays the host's committed offsets in native builds (go
// test): ReadOffsets returns its entries for the partitions asked (equal
// as JSON objects). It does not exist in the component.
var TestOffsets = map[string]string{}

// TestTransactions counts CommitTransaction and AbortTransaction calls in
// native builds.
var TestTransactions struct{ Commits, Aborts int }

func readOffsets(partitions []string) map[string]string {
	asked := map[string]bool{}
	for _, p := range partitions {
		asked[canonical(p)] = true
	}
	out := map[string]string{}
	for p, o := range TestOffsets {
		if asked[canonical(p)] {
			out[p] = o
		}
	}
	return out
}

func commitTransaction() { TestTransactions.Commits++ }
func abortTransaction()  { TestTransactions.Aborts++ }
