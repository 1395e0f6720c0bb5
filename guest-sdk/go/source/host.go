package source

// ReadOffsets returns the last committed offset of each of partitions that
// has one; partitions never committed are absent. Call it in start and
// resume *after* each returned offset. Natively (go test) it reads
// [TestOffsets].
func ReadOffsets(partitions ...string) map[string]string {
	return readOffsets(partitions)
}

// CommitTransaction asks the host to commit the open transaction right
// after the batch the current Poll returns: its records and their offsets
// become visible together. Only exactly-once connectors running with
// transaction.boundary=connector use it; otherwise the host ignores it.
func CommitTransaction() { commitTransaction() }

// AbortTransaction asks the host to abort the open transaction, including
// the batch the current Poll returns. See [CommitTransaction].
func AbortTransaction() { abortTransaction() }
