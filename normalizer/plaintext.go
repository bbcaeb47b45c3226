package normalizer

// PlainText is s without markup (stripMarkup): every tag, comment, script
// and style removed. The Meilisearch-compatible routes build docs-scraper
// records from page text with it, since docs search bars render those
// values as HTML.
func PlainText(s string) string {
	return stripMarkup(s)
}
