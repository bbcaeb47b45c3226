package devragflow

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"
)

const (
	pKgent    = "publish/system/components/kunora-kgent/index.md"
	pTools    = "publish/system/components/kunora-kgent/tools.md"
	pLegacy   = "publish/system/components/kunora-kgent-legacy/index.md"
	pRoadmap  = "drafts/kunora-kgent/roadmap.md"
	pGateway  = "publish/system/components/kunora-gateway/index.md"
	pKgentV1  = "v1.0:" + pKgent // version-qualified, see docPaths
	noMatches = "<no match>"
)

// filteredPaths runs a retrieval over every test dataset that returns all
// documents mentioning "kunora", with metadata_condition mc, and lists the
// document paths it returned ("v1.0:" marks the v1.0 page).
func filteredPaths(t *testing.T, s *Server, mc any) []string {
	t.Helper()
	out := decode(t, post(t, s, "/api/v1/retrieval", map[string]any{
		"dataset_ids":          []any{dsKgentMain, dsKgentWorking, dsKgentV1, dsGatewayMain},
		"question":             "kunora",
		"similarity_threshold": 0,
		"page_size":            100,
		"metadata_condition":   mc,
		"reference_metadata":   map[string]any{"include": true, "fields": []any{"path", "version"}},
	}))
	if out["code"] != 0.0 {
		t.Fatalf("retrieval failed: %v", out)
	}
	data := out["data"].(map[string]any)
	if _, isDict := data["doc_aggs"].(map[string]any); isDict {
		return []string{noMatches} // the early exit of a condition that matched nothing
	}
	return docPaths(chunksOf(data))
}

func docPaths(chunks []map[string]any) []string {
	seen := map[string]bool{}
	var paths []string
	for _, c := range chunks {
		meta := c["document_metadata"].(map[string]any)
		p := meta["path"].(string)
		if meta["version"] != "main" {
			p = meta["version"].(string) + ":" + p
		}
		if !seen[p] {
			seen[p] = true
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	return paths
}

func cond(name, op string, value any) map[string]any {
	return map[string]any{"name": name, "comparison_operator": op, "value": value}
}

func and(conds ...map[string]any) map[string]any {
	list := make([]any, len(conds))
	for i, c := range conds {
		list[i] = c
	}
	return map[string]any{"logic": "and", "conditions": list}
}

func TestMetadataConditionOperators(t *testing.T) {
	s := newTestServer(t)
	mainAll := []string{pRoadmap, pGateway, pKgent, pLegacy, pTools}
	tests := []struct {
		name string
		mc   any
		want []string
	}{
		{"= is case-insensitive", and(cond("title", "=", "KUNORA-KGENT Overview")), []string{pKgent}},
		{"is", and(cond("title", "is", "kgent roadmap")), []string{pRoadmap}},
		{"≠", and(cond("status", "≠", "approved")), []string{pRoadmap}},
		{"!=", and(cond("status", "!=", "approved")), []string{pRoadmap}},
		{"not is", and(cond("status", "not is", "approved")), []string{pRoadmap}},
		{">", and(cond("version", ">", "main")), []string{pKgentV1}},
		{"<", and(cond("version", "<", "v1.0")), mainAll},
		{"≥", and(cond("version", "≥", "v1.0")), []string{pKgentV1}},
		{">=", and(cond("version", ">=", "v1.0")), []string{pKgentV1}},
		{"≤", and(cond("version", "≤", "main")), mainAll},
		{"<=", and(cond("version", "<=", "main")), mainAll},
		{"date value never matches non-dates", and(cond("version", ">", "2020-01-01")), []string{noMatches}},
		{"contains", and(cond("path", "contains", "drafts")), []string{pRoadmap}},
		{"not contains", and(cond("path", "not contains", "publish")), []string{pRoadmap}},
		{"in list", and(cond("project", "in", []any{"Kunora-Gateway", "kunora-ops"})), []string{pGateway}},
		{"in string is a substring test", and(cond("project", "in", "kunora-gateway and more")), []string{pGateway}},
		{"not in", and(cond("project", "not in", []any{"kunora-kgent"})), []string{pGateway}},
		{"start with a folder prefix", and(cond("path", "start with", "publish/system/components/kunora-kgent/")),
			[]string{pKgentV1, pKgent, pTools}},
		{"start with without slash takes siblings", and(cond("path", "start with", "publish/system/components/kunora-kgent")),
			[]string{pKgentV1, pKgent, pLegacy, pTools}},
		{"end with", and(cond("path", "end with", "tools.md")), []string{pTools}},
		{"empty", and(cond("url", "empty", "")), []string{noMatches}},
		{"not empty", and(cond("status", "not empty", "")), append([]string{pKgentV1}, mainAll...)},
		{"and narrows", and(cond("project", "=", "kunora-kgent"), cond("path", "end with", "roadmap.md")), []string{pRoadmap}},
		{"and without overlap", and(cond("project", "=", "kunora-gateway"), cond("status", "=", "working")), []string{noMatches}},
		{"or widens", map[string]any{"logic": "or", "conditions": []any{
			cond("path", "end with", "tools.md"), cond("project", "=", "kunora-gateway")}}, []string{pGateway, pTools}},
		{"unknown key", and(cond("author", "=", "bob")), []string{noMatches}},
		{"unknown operator", and(cond("title", "like", "x")), []string{noMatches}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := filteredPaths(t, s, tc.mc)
			want := append([]string(nil), tc.want...)
			sort.Strings(want)
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("paths = %v, want %v", got, want)
			}
		})
	}
}

// An empty condition list leaves RAGFlow's "-999" sentinel: nothing
// matches, but through the normal path (doc_aggs is a list).
func TestMetadataConditionWithoutConditionsMatchesNothing(t *testing.T) {
	s := newTestServer(t)
	data := retrieve(t, s, map[string]any{"dataset_ids": []any{dsKgentMain}, "question": "kunora",
		"metadata_condition": map[string]any{"logic": "and", "conditions": []any{}}})
	raw, _ := json.Marshal(data)
	if string(raw) != `{"chunks":[],"doc_aggs":[],"total":0}` {
		t.Errorf("data = %s", raw)
	}
}

func TestMetadataConditionIgnoredWithDocumentIDs(t *testing.T) {
	s := newTestServer(t)
	tools := docIDByPath(t, s, dsKgentMain, pTools)
	data := retrieve(t, s, map[string]any{"dataset_ids": []any{dsKgentMain}, "question": "kunora",
		"similarity_threshold": 0, "document_ids": []any{tools},
		"metadata_condition": and(cond("path", "end with", "roadmap.md"))})
	if len(chunksOf(data)) == 0 {
		t.Error("metadata_condition was applied although document_ids were given")
	}
}

func TestMetadataConditionMalformed(t *testing.T) {
	s := newTestServer(t)
	tests := []struct {
		name string
		mc   any
		want string
	}{
		{"not an object", []any{1}, `AttributeError("'list' object has no attribute 'get'")`},
		{"condition without value", and(map[string]any{"name": "path", "comparison_operator": "empty"}), "KeyError('value')"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := decode(t, post(t, s, "/api/v1/retrieval", map[string]any{
				"dataset_ids": []any{dsKgentMain}, "question": "kunora", "metadata_condition": tc.mc}))
			sameJSON(t, out, map[string]any{"code": 100, "data": nil, "message": tc.want})
		})
	}
}

func TestMetaMatchesLiteralValues(t *testing.T) {
	tests := []struct {
		input, op string
		value     any
		want      bool
	}{
		{"1.5", ">", json.Number("1"), true},
		{"10", ">", "9", true}, // both literal_eval to numbers
		{"10", ">", "abc", false},
		{"2026-10-02", "≥", "2026-01-01", true},
		{"2026-10-02", "<", "2026-01-01", false},
		{"main", "≠", json.Number("3"), true},
	}
	for _, tc := range tests {
		if got := metaMatches(tc.input, tc.op, tc.value); got != tc.want {
			t.Errorf("%q %s %v = %v, want %v", tc.input, tc.op, tc.value, got, tc.want)
		}
	}
}
