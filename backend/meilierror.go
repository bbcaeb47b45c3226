package backend

// MeiliError is Meilisearch's error body (docs/backends.md, Meilisearch wire
// details: Errors): the engine answers every error with this object, its
// HTTP status following from Code, and Link
// "https://docs.meilisearch.com/errors#<code>". The gate's client (meili)
// and the loader (ingest) read it; the development Meilisearch and the
// gate's Meilisearch-compatible routes (meiliroutes) write it, members in
// this order as the engine does.
type MeiliError struct {
	Message string `json:"message"`
	Code    string `json:"code"`
	Type    string `json:"type"`
	Link    string `json:"link"`
}
