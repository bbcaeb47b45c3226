package devmeili

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/wikigate/wikigate/meili/filterexpr"
)

// browseQuery is a decoded documents listing (docs/backends.md, Meilisearch
// wire details: Documents).
type browseQuery struct {
	offset, limit int
	fields        []string
	filter        any
	ids           []string
	idsSet        bool
	sort          []string
}

var browseParamNames = []string{"offset", "limit", "fields", "retrieveVectors", "filter", "sort", "ids"}
var fetchFieldNames = []string{"offset", "limit", "fields", "retrieveVectors", "filter", "ids", "sort"}

func docLocation(name string, param bool) location {
	return location{name: name, param: param, codePrefix: "invalid_document_"}
}

func (s *Server) handleGetDocument(w http.ResponseWriter, r *http.Request, _ credential) *apiError {
	pairs, err := orderedQuery(r.URL.RawQuery)
	if err != nil {
		return err
	}
	var fields []string
	for _, p := range pairs {
		loc := docLocation(p.name, true)
		switch p.name {
		case "fields":
			fields = splitList(p.value)
		case "retrieveVectors":
			if _, err := paramValue(paramBool, p.value, loc); err != nil {
				return err
			}
		default:
			return newError("bad_request", "Unknown parameter `%s`: expected one of `fields`, `retrieveVectors`", p.name)
		}
	}
	ix, err := s.lookupIndex(r.PathValue("uid"))
	if err != nil {
		return err
	}
	id := r.PathValue("id")
	pos, ok := ix.byID[id]
	if !ok {
		return newError("document_not_found", "Document `%s` not found.", id)
	}
	writeJSON(w, http.StatusOK, selectFields(ix.docs[pos], fields))
	return nil
}

func (s *Server) handleListDocuments(w http.ResponseWriter, r *http.Request, _ credential) *apiError {
	bq := browseQuery{limit: 20}
	pairs, err := orderedQuery(r.URL.RawQuery)
	if err != nil {
		return err
	}
	for _, p := range pairs {
		if !contains(browseParamNames, p.name) {
			return newError("bad_request", "Unknown parameter `%s`: expected one of %s", p.name, quotedList(browseParamNames))
		}
		kind := map[string]paramKind{"offset": paramUint, "limit": paramUint, "retrieveVectors": paramBool,
			"fields": paramList, "sort": paramList, "ids": paramList, "filter": paramFilter}[p.name]
		loc := docLocation(p.name, true)
		v, err := paramValue(kind, p.value, loc)
		if err != nil {
			return err
		}
		if err := setBrowseField(&bq, p.name, v, loc); err != nil {
			return err
		}
	}
	return s.browse(w, r, bq)
}

func (s *Server) handleFetchDocuments(w http.ResponseWriter, r *http.Request, _ credential) *apiError {
	body, err := readJSONBody(w, r, s.bodyLimit)
	if err != nil {
		return err
	}
	members, err := decodeObject(body)
	if err != nil {
		return err
	}
	bq := browseQuery{limit: 20}
	for _, m := range members {
		if !contains(fetchFieldNames, m.key) {
			return newError("bad_request", "Unknown field `%s`: expected one of %s", m.key, quotedList(fetchFieldNames))
		}
		if err := setBrowseField(&bq, m.key, m.value, docLocation(m.key, false)); err != nil {
			return err
		}
	}
	return s.browse(w, r, bq)
}

func setBrowseField(bq *browseQuery, name string, v any, loc location) (err *apiError) {
	switch name {
	case "offset":
		bq.offset, err = asUint(v, loc)
	case "limit":
		bq.limit, err = asUint(v, loc)
	case "fields":
		bq.fields, err = asStringList(v, loc)
	case "retrieveVectors":
		_, err = asBool(v, loc)
	case "filter":
		bq.filter = v
	case "sort":
		bq.sort, err = asStringList(v, loc)
	case "ids":
		bq.ids, err = asIDList(v, loc)
		bq.idsSet = v != nil
	}
	return err
}

// asIDList accepts document ids as strings or integers.
func asIDList(v any, loc location) ([]string, *apiError) {
	if v == nil {
		return nil, nil
	}
	items, ok := v.([]any)
	if !ok {
		return nil, loc.typeError("an array", v)
	}
	ids := make([]string, 0, len(items))
	for _, item := range items {
		switch t := item.(type) {
		case string:
			ids = append(ids, t)
		case json.Number:
			ids = append(ids, t.String())
		default:
			return nil, newError(loc.code(), "Invalid value type at `.%s`: expected a document id (string or integer), but found %s", loc.name, describeValue(item))
		}
	}
	return ids, nil
}

// browse answers {results, offset, limit, total}; filter errors use
// invalid_document_filter without the "Index" prefix (docs/backends.md,
// Meilisearch wire details: Documents).
func (s *Server) browse(w http.ResponseWriter, r *http.Request, bq browseQuery) *apiError {
	rec := recordOf(r)
	if bq.filter != nil {
		rec.Filter = jsonText(bq.filter)
	}
	ix, err := s.lookupIndex(r.PathValue("uid"))
	if err != nil {
		return err
	}
	node, ferr := filterexpr.ParseValue(bq.filter)
	if ferr == nil {
		ferr = checkFilterable(node, filterableAttributes)
	}
	if ferr != nil {
		code := "invalid_document_filter"
		if ferr.FeatureGated {
			code = "feature_not_enabled"
		}
		return newError(code, "%s", ferr.Error())
	}
	for _, s := range bq.sort {
		attr, _, _ := strings.Cut(s, ":")
		return newError("invalid_document_sort", "Attribute `%s` is not sortable. This index does not have configured sortable attributes.", attr)
	}
	var matched []orderedObject
	for _, pos := range ix.filterDocs(node) {
		if id, _ := ix.docs[pos].get("id"); !bq.idsSet || contains(bq.ids, id.(string)) {
			matched = append(matched, ix.docs[pos])
		}
	}
	from := min(bq.offset, len(matched))
	to := from + min(bq.limit, len(matched)-from)
	results := make([]orderedObject, 0, to-from)
	for _, d := range matched[from:to] {
		results = append(results, selectFields(d, bq.fields))
	}
	writeJSON(w, http.StatusOK, orderedObject{
		{"results", results}, {"offset", bq.offset}, {"limit", bq.limit}, {"total", len(matched)},
	})
	return nil
}

func splitList(s string) []string {
	parts := strings.Split(s, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}
