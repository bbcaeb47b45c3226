package doctor

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"
)

// MinRAGFlowVersion is the oldest RAGFlow whose API the gate speaks: 0.26
// brought POST /api/v1/chat/completions without a chat, which answers use
// (retrieval alone also works with 0.24).
var MinRAGFlowVersion = version{0, 26, 0}

// RAGFlowTarget is the gate's RAGFlow configuration.
type RAGFlowTarget struct{ URL, APIKey string }

// ragflowMetaKeys are the meta_fields every document must carry: the
// citation the gate returns and the scope its metadata_condition filters.
var ragflowMetaKeys = []string{"path", "url", "title", "project", "version", "status"}

const ragName = "ragflow"

// envelope is RAGFlow's answer shape (HTTP 200 even for most errors).
type envelope struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

func checkRAGFlow(ctx context.Context, r *Report, cfg Config) {
	t := cfg.RAGFlow
	var health struct{ Status string }
	if _, err := getJSON(ctx, cfg.HTTP, t.URL, "/api/v1/system/healthz", "", &health); err != nil || health.Status != "ok" {
		r.add(ragName, Fail, "%s/api/v1/system/healthz: not healthy (%v): nothing else checked", t.URL, errOr(err, health.Status))
		return
	}
	checkRAGFlowVersion(ctx, r, cfg)
	for _, s := range cfg.Catalog.slots() {
		if checkDataset(ctx, r, cfg, s) {
			checkDatasetDocuments(ctx, r, cfg, s)
		}
	}
}

func checkRAGFlowVersion(ctx context.Context, r *Report, cfg Config) {
	var env envelope
	_, err := getJSON(ctx, cfg.HTTP, cfg.RAGFlow.URL, "/api/v1/system/version", cfg.RAGFlow.APIKey, &env)
	var v string
	if err == nil && env.Code == 0 {
		err = json.Unmarshal(env.Data, &v)
	}
	got, ok := parseVersion(v)
	switch {
	case err != nil || env.Code != 0 || !ok:
		r.add(ragName, Warn, "version not read (%s); the gate needs RAGFlow %s or later", describe(err, env), MinRAGFlowVersion)
	case got.less(MinRAGFlowVersion):
		r.add(ragName, Fail, "version %s is older than %s, the oldest the gate supports", v, MinRAGFlowVersion)
	default:
		r.add(ragName, OK, "version %s", v)
	}
}

func describe(err error, env envelope) string {
	if err != nil {
		return err.Error()
	}
	if env.Code != 0 {
		return fmt.Sprintf("code %d: %s", env.Code, env.Message)
	}
	return "no version number in the answer"
}

// checkDataset: the catalog's dataset exists and the gate's key may read
// it (RAGFlow answers both cases with the same refusal).
func checkDataset(ctx context.Context, r *Report, cfg Config, s slot) bool {
	var env envelope
	path := "/api/v1/datasets?page=1&page_size=1&id=" + url.QueryEscape(s.id)
	_, err := getJSON(ctx, cfg.HTTP, cfg.RAGFlow.URL, path, cfg.RAGFlow.APIKey, &env)
	var list []struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	if err == nil && env.Code == 0 {
		err = json.Unmarshal(env.Data, &list)
	}
	if err != nil || env.Code != 0 || len(list) != 1 || list[0].ID != s.id {
		r.add(ragName, Fail, "dataset %s: does not exist or the gate's RAGFlow key cannot access it (%s)", s, describe(err, env))
		return false
	}
	return true
}

type ragDoc struct {
	ID         string         `json:"id"`
	Name       string         `json:"name"`
	Run        string         `json:"run"`
	MetaFields map[string]any `json:"meta_fields"`
}

// checkDatasetDocuments reads a sample of the dataset's documents and
// names those whose metadata a citation or a scope filter would miss.
func checkDatasetDocuments(ctx context.Context, r *Report, cfg Config, s slot) {
	var env envelope
	path := fmt.Sprintf("/api/v1/datasets/%s/documents?page=1&page_size=%d", url.PathEscape(s.id), cfg.Sample)
	_, err := getJSON(ctx, cfg.HTTP, cfg.RAGFlow.URL, path, cfg.RAGFlow.APIKey, &env)
	var data struct {
		Total int      `json:"total"`
		Docs  []ragDoc `json:"docs"`
	}
	if err == nil && env.Code == 0 {
		err = json.Unmarshal(env.Data, &data)
	}
	if err != nil || env.Code != 0 {
		r.add(ragName, Fail, "dataset %s: documents not listed (%s)", s, describe(err, env))
		return
	}
	if len(data.Docs) == 0 {
		r.add(ragName, Warn, "dataset %s holds no documents: answers in its scope find nothing", s)
		return
	}
	bad := 0
	for _, d := range data.Docs {
		if msg := ragDocProblem(d, s); msg != "" {
			bad++
			r.add(ragName, Fail, "dataset %s, document %q: %s", s.id, d.Name, msg)
		}
	}
	if bad == 0 {
		r.add(ragName, OK, "dataset %s: %d sampled document(s) of %d carry the citation metadata", s, len(data.Docs), data.Total)
	}
}

func ragDocProblem(d ragDoc, s slot) string {
	var missing []string
	for _, k := range ragflowMetaKeys {
		if v, _ := d.MetaFields[k].(string); v == "" {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return "meta_fields lack " + strings.Join(missing, ", ")
	}
	want := map[string]string{"project": s.project, "version": s.version, "status": s.status}
	for _, k := range []string{"project", "version", "status"} {
		if got := d.MetaFields[k].(string); got != want[k] {
			return fmt.Sprintf("meta_fields %s is %q but the catalog files this dataset under %q (one project, version and status per dataset)", k, got, want[k])
		}
	}
	if d.Run != "" && d.Run != "DONE" {
		return fmt.Sprintf("not parsed (run %s): retrieval cannot find it", d.Run)
	}
	return ""
}
