// Package normalizer reshapes backend JSON into the protocol's shapes
// (docs/architecture.md, "Packages"): Meilisearch hits into search hits and
// get_page pages, RAGFlow chunks and completions into AnswerResult and
// citations.
//
// It is also the response-side check. Whatever a backend returns, anything
// whose project, version, status, path or dataset lies outside the decided
// scope is dropped here and counted for the audit record, because a backend
// filter alone is not enough: Meilisearch compares strings
// case-insensitively, and a misconfigured or compromised backend may ignore
// filters altogether.
package normalizer
