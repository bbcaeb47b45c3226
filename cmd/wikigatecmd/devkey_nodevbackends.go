//go:build nodevbackends

package wikigatecmd

// devSearchKey is empty in a build without the development backends: there
// is no development Meilisearch whose key a default could name, so
// WIKIGATE_MEILI_SEARCH_KEY(_UID) must be set (deploy/env.example).
func devSearchKey(string) (uid, key string) { return "", "" }
