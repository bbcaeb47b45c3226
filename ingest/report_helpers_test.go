package ingest

// Changes counts the pages the run added, changed or removed.
func (r *Report) Changes() int { return len(r.Added) + len(r.Changed) + len(r.Removed) }
