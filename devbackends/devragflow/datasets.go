package devragflow

import (
	"fmt"
	"net/http"
	"net/url"
	"path"
	"sort"
	"strings"
	"time"
)

// devEmbeddingModel names the "embedding" honestly: there is none.
const devEmbeddingModel = "wikigate-dev-lexical@wikigate"

// devNickname is the owner name shown on datasets and documents.
const devNickname = "wikigate-dev"

// handleDatasets is GET /api/v1/datasets (list_datasets, get_result with
// total_datasets; docs/backends.md, RAGFlow wire details: Datasets).
func (s *Server) handleDatasets(w http.ResponseWriter, r *http.Request, rec *LoggedRequest) {
	q := r.URL.Query()
	page, size, body := listPaging(q)
	if body != nil {
		s.reply(w, rec, http.StatusOK, body)
		return
	}
	list := append([]*dataset(nil), s.model.datasets...)
	ids := append(q["ids"], q["id"]...)
	rec.DatasetIDs = ids
	for _, id := range ids {
		if s.model.byDataset[id] == nil {
			s.reply(w, rec, http.StatusOK, errorResult(codeData,
				fmt.Sprintf("User '%s' lacks permission for dataset '%s'", s.model.tenantID, id)))
			return
		}
	}
	list = filterDatasets(list, ids, q.Get("name"))
	if name := q.Get("name"); name != "" && len(list) == 0 {
		// A name nobody has is an error, not an empty list (docs/backends.md,
		// RAGFlow wire details: Datasets).
		s.reply(w, rec, http.StatusOK, errorResult(codeData,
			fmt.Sprintf("User '%s' lacks permission for dataset '%s'", s.model.tenantID, name)))
		return
	}
	sortByTime(list, q, func(d *dataset) (time.Time, time.Time) { return d.created, d.updated })
	out := []any{}
	for _, ds := range pageOf(list, page, size) {
		out = append(out, s.datasetJSON(ds))
	}
	s.reply(w, rec, http.StatusOK, map[string]any{"code": codeSuccess, "data": out, "total_datasets": len(list)})
}

func filterDatasets(list []*dataset, ids []string, name string) []*dataset {
	var out []*dataset
	for _, ds := range list {
		if (len(ids) == 0 || containsString(ids, ds.ID)) && (name == "" || strings.EqualFold(ds.Name, name)) {
			out = append(out, ds)
		}
	}
	return out
}

// handleDocuments is GET /api/v1/datasets/{id}/documents (list_docs:
// get_json_result with data.total and docs carrying meta_fields).
func (s *Server) handleDocuments(w http.ResponseWriter, r *http.Request, rec *LoggedRequest) {
	id := r.PathValue("dataset_id")
	rec.DatasetIDs = []string{id}
	ds := s.model.byDataset[id]
	if ds == nil {
		s.reply(w, rec, http.StatusOK, errorResult(codeData, fmt.Sprintf("You don't own the dataset %s. ", id)))
		return
	}
	q := r.URL.Query()
	page, size, body := listPaging(q)
	if body != nil {
		s.reply(w, rec, http.StatusOK, body)
		return
	}
	if docID := q.Get("id"); docID != "" {
		if d := s.model.byDoc[docID]; d == nil || d.dataset != ds {
			s.reply(w, rec, http.StatusOK, errorResult(codeData, fmt.Sprintf("you don't own the document %s", docID)))
			return
		}
	}
	docs := filterDocs(ds.docs, q)
	sortByTime(docs, q, func(d *document) (time.Time, time.Time) { return d.page.UpdatedAt, d.page.UpdatedAt })
	out := []any{}
	for _, d := range pageOf(docs, page, size) {
		out = append(out, s.documentJSON(d))
	}
	s.reply(w, rec, http.StatusOK, jsonResult(codeSuccess, "success", map[string]any{"total": len(docs), "docs": out}))
}

func filterDocs(docs []*document, q url.Values) []*document {
	var out []*document
	kw := strings.ToLower(q.Get("keywords"))
	for _, d := range docs {
		switch {
		case q.Get("id") != "" && d.id != q.Get("id"):
		case len(q["ids"]) > 0 && !containsString(q["ids"], d.id):
		case q.Get("name") != "" && d.name != q.Get("name"):
		case kw != "" && !strings.Contains(strings.ToLower(d.name), kw):
		default:
			out = append(out, d)
		}
	}
	return out
}

// listPaging reads page and page_size as validate_rest_api_page(_size) do.
func listPaging(q url.Values) (int, int, map[string]any) {
	page := restPage(q.Get("page"), q.Has("page"))
	size, failed := restPageSize(q.Get("page_size"), q.Has("page_size"))
	if failed != "" {
		return 0, 0, exceptionResult(failed)
	}
	return page, size, nil
}

// sortByTime orders by orderby (create_time, or update_time) and desc
// (default true), keeping catalog order among equal times.
func sortByTime[T any](list []T, q url.Values, times func(T) (created, updated time.Time)) {
	byUpdate := q.Get("orderby") == "update_time"
	desc := strings.ToLower(q.Get("desc")) != "false"
	key := func(v T) time.Time {
		c, u := times(v)
		if byUpdate {
			return u
		}
		return c
	}
	sort.SliceStable(list, func(i, j int) bool {
		if desc {
			return key(list[i]).After(key(list[j]))
		}
		return key(list[i]).Before(key(list[j]))
	})
}

func pageOf[T any](list []T, page, size int) []T {
	start := min((page-1)*size, len(list))
	return list[start:min(start+size, len(list))]
}

func parserConfig() map[string]any {
	return map[string]any{
		"chunk_token_num": 512, "delimiter": `\n`, "html4excel": false, "layout_recognize": "DeepDOC",
		"raptor": map[string]any{"use_raptor": false}, "graphrag": map[string]any{"use_graphrag": false},
	}
}

func (s *Server) datasetJSON(ds *dataset) map[string]any {
	return map[string]any{
		"id": ds.ID, "name": ds.Name, "avatar": "", "description": nil, "language": "English",
		"permission": "me", "tenant_id": s.model.tenantID, "created_by": s.model.tenantID,
		"nickname": devNickname, "tenant_avatar": nil,
		"chunk_count": ds.chunkCount(), "document_count": len(ds.docs), "token_num": ds.tokenCount(),
		"embedding_model": devEmbeddingModel, "chunk_method": "naive", "parser_config": parserConfig(),
		"similarity_threshold": pyFloat(0.2), "vector_similarity_weight": pyFloat(0.3), "status": "1",
		"create_time": ds.created.UnixMilli(), "create_date": httpDate(ds.created),
		"update_time": ds.updated.UnixMilli(), "update_date": httpDate(ds.updated),
	}
}

func (s *Server) documentJSON(d *document) map[string]any {
	meta := map[string]any{}
	for k, v := range d.meta {
		meta[k] = v
	}
	t := d.page.UpdatedAt
	return map[string]any{
		"id": d.id, "name": d.name, "dataset_id": d.dataset.ID, "type": "doc",
		"suffix": strings.TrimPrefix(path.Ext(d.name), "."), "size": len(d.page.Content),
		"location": d.name, "source_type": "local", "chunk_method": "naive", "parser_config": parserConfig(),
		"chunk_count": len(d.chunks), "token_count": d.tokenCount(), "run": d.run, "status": "1",
		"progress": pyFloat(d.progress()), "progress_msg": d.progressMsg(), "process_begin_at": httpDate(t),
		"process_duration": pyFloat(0),
		"thumbnail":        "", "created_by": s.model.tenantID, "nickname": devNickname,
		"create_time": t.UnixMilli(), "create_date": httpDate(t), "update_time": t.UnixMilli(), "update_date": httpDate(t),
		"pipeline_id": "", "pipeline_name": "", "meta_fields": meta,
	}
}

// httpDate is Quart's rendering of a datetime: RFC 1123 in GMT.
func httpDate(t time.Time) string { return t.UTC().Format(http.TimeFormat) }
