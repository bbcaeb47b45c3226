package devragflow

import (
	"net/http"
	"strings"
	"testing"
)

func newEmptyServer(t *testing.T) *Server {
	t.Helper()
	s, err := New(Config{APIKey: testKey, Corpus: testCorpus(t), Empty: true})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestEmptyServerStartsWithoutDatasets(t *testing.T) {
	s := newEmptyServer(t)
	listed := authed(t, s, http.MethodGet, "/api/v1/datasets", nil)
	if data, _ := listed["data"].([]any); listed["code"] != 0.0 || len(data) != 0 {
		t.Fatalf("an empty server lists datasets: %v", listed)
	}
	// The catalog's datasets do not exist yet: retrieval over one is
	// RAGFlow's "not yours" error, as on a fresh tenant.
	out := decode(t, post(t, s, "/api/v1/retrieval", map[string]any{"question": "kunora", "dataset_ids": []string{dsKgentMain}}))
	if out["code"] != 102.0 || !strings.Contains(out["message"].(string), "You don't own the dataset") {
		t.Fatalf("retrieval over a catalog dataset before it is created: %v", out)
	}
}

func TestEmptyServerGivesCatalogNamesTheirCatalogIDs(t *testing.T) {
	s := newEmptyServer(t)
	if got := createDataset(t, s, "kgent main approved")["id"]; got != dsKgentMain {
		t.Fatalf("dataset created under a catalog name has id %v, want the catalog's %s", got, dsKgentMain)
	}
	// A second dataset under that name is renamed by RAGFlow and gets an id
	// of its own; a name the catalog does not hold gets a derived id.
	again := createDataset(t, s, "kgent main approved")
	other := createDataset(t, s, "my wiki main approved")
	for _, ds := range []map[string]any{again, other} {
		if ds["id"] == dsKgentMain || len(ds["id"].(string)) != 32 {
			t.Errorf("dataset %v has id %v", ds["name"], ds["id"])
		}
	}
	if again["name"] != "kgent main approved(1)" || again["id"] == other["id"] {
		t.Errorf("second dataset: %v %v, other %v", again["name"], again["id"], other["id"])
	}
	up := upload(t, s, dsKgentMain, "file", "publish__a.md", "# A\n\nThe quokka rota pages the on-call engineer.\n")
	if up["code"] != 0.0 {
		t.Fatalf("upload into the created catalog dataset: %v", up)
	}
}

func TestSampleServerKeepsItsCorpus(t *testing.T) {
	listed := authed(t, newTestServer(t), http.MethodGet, "/api/v1/datasets", nil)
	if data, _ := listed["data"].([]any); len(data) != 5 {
		t.Fatalf("the corpus server lists %d datasets, want the catalog's 5", len(data))
	}
}
