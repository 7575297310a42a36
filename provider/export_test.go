package provider

// BatchRowsCalls counts the column batches a scan made GMS rows of
// (appendBatchRows), so tests see that the batch path ran.
var BatchRowsCalls = &batchRowsCalls
