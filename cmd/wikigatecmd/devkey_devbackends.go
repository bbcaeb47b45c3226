//go:build !nodevbackends

package wikigatecmd

import "github.com/wikigate/wikigate/devbackends/devmeili"

// devSearchKey is the development Meilisearch's search-only key under
// masterKey, the default of WIKIGATE_MEILI_SEARCH_KEY(_UID).
func devSearchKey(masterKey string) (uid, key string) {
	return devmeili.SearchKeyFor(masterKey)
}
