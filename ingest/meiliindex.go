package ingest

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// IndexSettings are the settings the gate relies on (docs/backends.md,
// Meilisearch "Write side"): every attribute its scope filters name is
// filterable, the text fields are searchable, contentHash is displayed so the
// next run can compare, and stop words keep questions to their content words,
// in the languages the content is written in (StopWords).
func IndexSettings(stopWords []string) map[string]any {
	return map[string]any{
		"filterableAttributes": []string{"id", "project", "version", "status", "path", "pathPrefixes"},
		"searchableAttributes": []string{"title", "headings", "content", "path"},
		"displayedAttributes": []string{"id", "path", "url", "title", "project", "version", "status",
			"pathPrefixes", "headings", "content", "updatedAt", "contentHash", "locale"},
		"stopWords": stopWords,
	}
}

// stopWordLists are the lists a mapping's languages choose from. English
// matches the development Meilisearch's, so a real index ranks the same
// questions the same way; Chinese drops the particles and question words
// the development RAGFlow drops.
var stopWordLists = map[string][]string{
	"en": strings.Fields(`a about am an and any are as at be been being but by can could
	did do does doing for from had has have how i if in into is it its me my of on or our
	shall should so than that the their them then there these they this those to too was
	we were what when where which who whom why will with would you your`),
	"zh": strings.Fields(`的 是 了 在 和 与 吗 呢 么 什么 怎么 如何 请 我 你 我们 这 那 个 有 吧`),
}

// StopWords is the union of the lists of languages, in order, without repeats.
func StopWords(languages []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, lang := range languages {
		for _, w := range stopWordLists[lang] {
			if !seen[w] {
				seen[w] = true
				out = append(out, w)
			}
		}
	}
	return out
}

// ensureIndex creates the index with primary key id unless it exists; a
// creation that lost a race to another loader (index_already_exists) is fine.
func (c *MeiliClient) ensureIndex(ctx context.Context, uid string) (created bool, err error) {
	err = c.do(ctx, http.MethodGet, "/indexes/"+url.PathEscape(uid), nil, nil)
	var api *APIError
	switch {
	case err == nil:
		return false, nil
	case !errors.As(err, &api) || api.Code != "index_not_found":
		return false, err
	}
	err = c.write(ctx, http.MethodPost, "/indexes", map[string]any{"uid": uid, "primaryKey": "id"})
	if errors.As(err, &api) && api.Code == "index_already_exists" {
		return false, nil
	}
	return err == nil, err
}

// indexed is what the index holds of one page: enough to compare and report.
type indexed struct {
	ID          string `json:"id"`
	Path        string `json:"path"`
	Version     string `json:"version"`
	ContentHash string `json:"contentHash"`
	Locale      string `json:"locale"`
}

// fetchIndexed lists the documents of the given projects, page by page.
func (c *MeiliClient) fetchIndexed(ctx context.Context, uid string, projects []string) (map[string]indexed, error) {
	const pageSize = 1000
	out := map[string]indexed{}
	filter := "project IN [" + quoteAll(projects) + "]"
	for offset := 0; ; offset += pageSize {
		var resp struct {
			Results []indexed `json:"results"`
			Total   int       `json:"total"`
		}
		body := map[string]any{"fields": []string{"id", "path", "version", "contentHash", "locale"}, "filter": filter,
			"limit": pageSize, "offset": offset}
		if err := c.do(ctx, http.MethodPost, "/indexes/"+url.PathEscape(uid)+"/documents/fetch", body, &resp); err != nil {
			return nil, err
		}
		for _, d := range resp.Results {
			out[d.ID] = d
		}
		if len(resp.Results) < pageSize || offset+pageSize >= resp.Total {
			return out, nil
		}
	}
}

func quoteAll(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = strconv.Quote(v)
	}
	return strings.Join(q, ", ")
}

// label names a page in reports: the same path exists once per version.
func (d indexed) label() string { return pageLabel(d.Path, d.Version, d.Locale) }
