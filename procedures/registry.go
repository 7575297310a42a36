package procedures

// Default is the registry of every procedure lakesql offers (one file per
// procedure in this package).
func Default() *Registry {
	return NewRegistry(
		Compact,
		CreateTag, DeleteTag, RenameTag,
		ExpireSnapshots, ExpirePartitions, RemoveOrphanFiles,
		RollbackTo, Rollback,
		CreateBranch, DeleteBranch, FastForward,
		Rescale,
	)
}
