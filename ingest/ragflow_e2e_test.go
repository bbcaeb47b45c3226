package ingest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/wikigate/wikigate/devbackends/devragflow"
	"github.com/wikigate/wikigate/ingest"
	"github.com/wikigate/wikigate/ragflow"
	"github.com/wikigate/wikigate/samplewiki"
)

const testRAGFlowKey = "ragflow-ingest-test-key"

// emptyRAGFlow starts a development RAGFlow holding no dataset.
func emptyRAGFlow(t *testing.T) *httptest.Server {
	t.Helper()
	dev, err := devragflow.New(devragflow.Config{APIKey: testRAGFlowKey, Corpus: &samplewiki.Corpus{}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(dev)
	t.Cleanup(srv.Close)
	return srv
}

func runRAGFlow(t *testing.T, url, src string, dry bool) (*ingest.Report, *ingest.Catalog) {
	t.Helper()
	m, pages, fails := readTestTree(t, src)
	s := &ingest.RAGFlowSync{Client: &ingest.RAGFlowClient{URL: url, Key: testRAGFlowKey, PollEvery: time.Millisecond},
		Mapping: m, Concurrency: 2, DryRun: dry}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rep, cat, err := s.Run(ctx, pages, fails)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Failures) != 0 {
		t.Fatalf("write failures: %+v", rep.Failures)
	}
	return rep, cat
}

// retrieve asks as the gate does (its own client, the metadata fields it
// needs) within the datasets the catalog names for project, main, status.
func retrieve(t *testing.T, url string, cat *ingest.Catalog, project, status, q string) []ragflow.Chunk {
	t.Helper()
	c, err := ragflow.New(ragflow.Config{URL: url, APIKey: testRAGFlowKey})
	if err != nil {
		t.Fatal(err)
	}
	ids := cat.Datasets[project]["main"][status]
	res, err := c.Retrieve(context.Background(), ragflow.RetrieveParams{Question: q, DatasetIDs: ids})
	if err != nil {
		t.Fatalf("retrieve %q in %v: %v", q, ids, err)
	}
	return res.Chunks
}

func TestRAGFlowIngestIsIncrementalEndToEnd(t *testing.T) {
	srv := emptyRAGFlow(t)
	src := copyTree(t)
	dry, cat := runRAGFlow(t, srv.URL, src, true)
	if len(dry.Added) != 5 || !strings.HasPrefix(cat.Datasets["kunora-ops"]["main"]["working"][0], "(to be created: kunora-ops main working)") {
		t.Fatalf("dry run: %+v, catalog %+v", dry, cat.Datasets)
	}
	first, cat := runRAGFlow(t, srv.URL, src, false)
	if len(first.Added) != 5 || first.Changes() != 5 || len(first.CreatedDatasets) != 8 {
		t.Fatalf("first run: %+v (want 2 projects x 2 versions x 2 statuses created)", first)
	}
	if n := len(cat.Datasets["kunora-kgent"]); n != 2 {
		t.Fatalf("catalog %v: want main and v1.0 for kunora-kgent", cat.Datasets)
	}
	chunks := retrieve(t, srv.URL, cat, "kunora-kgent", "approved", "orbital kettle")
	if len(chunks) == 0 {
		t.Fatal("the ingested page is not retrievable")
	}
	want := map[string]any{"path": "publish/system/components/kunora-kgent/index.md", "url": "/system/components/kunora-kgent/",
		"title": "kgent overview", "project": "kunora-kgent", "version": "main", "status": "approved"}
	if !reflect.DeepEqual(chunks[0].Metadata, want) {
		t.Fatalf("document_metadata %v, want %v", chunks[0].Metadata, want)
	}
	if second, _ := runRAGFlow(t, srv.URL, src, false); second.Changes() != 0 || second.Unchanged != 5 || second.CreatedDatasets != nil {
		t.Fatalf("second run changed something: %+v", second)
	}
	editRunbook(t, src)
	edited, cat := runRAGFlow(t, srv.URL, src, false)
	if !reflect.DeepEqual(edited.Changed, []string{"publish/operations/runbook.md (main)"}) || edited.Changes() != 1 {
		t.Fatalf("after one edit: %+v", edited)
	}
	if got := retrieve(t, srv.URL, cat, "kunora-ops", "approved", "zeppelin desk"); len(got) != 1 ||
		!strings.Contains(got[0].Content, "zeppelin") || got[0].MetaString("path") != "publish/operations/runbook.md" {
		t.Fatalf("edited content: %+v", got)
	}
	if got := retrieve(t, srv.URL, cat, "kunora-ops", "approved", "gateway error rate"); len(got) != 0 {
		t.Fatalf("the old content is still retrievable: %+v", got)
	}
	if err := os.Remove(filepath.Join(src, "docs", "operations", "drafts", "capacity.md")); err != nil {
		t.Fatal(err)
	}
	removed, cat := runRAGFlow(t, srv.URL, src, false)
	if !reflect.DeepEqual(removed.Removed, []string{"publish/operations/drafts/capacity.md (main)"}) || removed.Changes() != 1 {
		t.Fatalf("after one delete: %+v", removed)
	}
	if got := retrieve(t, srv.URL, cat, "kunora-ops", "working", "capacity quarter"); len(got) != 0 {
		t.Fatalf("removed page still retrievable: %+v", got)
	}
}

// TestIngestOfTheSampleTreeFindsTheDevBackendsUpToDate is the promise
// docs/ingest.md makes: the development backends start with samplewiki/site read
// by ingest's own code, so loading that tree into them changes nothing, and
// the catalog ingest computes is rego/data.json's.
func TestIngestOfTheSampleTreeFindsTheDevBackendsUpToDate(t *testing.T) {
	dev, err := devragflow.New(devragflow.Config{APIKey: testRAGFlowKey})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(dev)
	defer srv.Close()
	m, pages, fails := readSampleTree(t)
	if len(fails) != 0 || len(pages) != 37 {
		t.Fatalf("%d pages, failures %v", len(pages), fails)
	}
	s := &ingest.RAGFlowSync{Client: &ingest.RAGFlowClient{URL: srv.URL, Key: testRAGFlowKey}, Mapping: m}
	rep, cat, err := s.Run(context.Background(), pages, nil)
	if err != nil || rep.Changes() != 0 || rep.Unchanged != 37 {
		t.Fatalf("report %+v, err %v", rep, err)
	}
	raw, err := os.ReadFile(filepath.Join("..", "rego", "data.json"))
	if err != nil {
		t.Fatal(err)
	}
	var data struct {
		Catalog ingest.Catalog `json:"catalog"`
	}
	if err := json.Unmarshal(raw, &data); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cat.Datasets, data.Catalog.Datasets) {
		t.Fatalf("catalog %v\nwant rego/data.json's %v", cat.Datasets, data.Catalog.Datasets)
	}
}

// ragflowCall sends one raw API call to the development RAGFlow and
// returns the envelope's data.
func ragflowCall(t *testing.T, req *http.Request) json.RawMessage {
	t.Helper()
	resp := send(t, req, testRAGFlowKey)
	defer resp.Body.Close()
	var env struct {
		Code int             `json:"code"`
		Data json.RawMessage `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil || env.Code != 0 {
		t.Fatalf("%s %s: code %d, err %v", req.Method, req.URL.Path, env.Code, err)
	}
	return env.Data
}

// uploadRaw uploads a file as an interrupted run would have left it.
func uploadRaw(t *testing.T, url, dataset, name, content string) string {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	part, _ := mw.CreateFormFile("file", name)
	part.Write([]byte(content))
	mw.Close()
	req, _ := http.NewRequest(http.MethodPost, url+"/api/v1/datasets/"+dataset+"/documents", &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	var docs []struct{ ID string }
	if err := json.Unmarshal(ragflowCall(t, req), &docs); err != nil || len(docs) != 1 {
		t.Fatalf("upload: %v %v", docs, err)
	}
	return docs[0].ID
}

// TestRAGFlowRerunFinishesAnInterruptedRun: a run stopped after uploading a
// page and setting its metadata, but before parsing it, and one stopped
// before setting the metadata of another upload; re-running parses the
// first and removes the second, touching nothing else.
func TestRAGFlowRerunFinishesAnInterruptedRun(t *testing.T) {
	srv := emptyRAGFlow(t)
	src := copyTree(t)
	_, cat := runRAGFlow(t, srv.URL, src, false)
	opsMain := cat.Datasets["kunora-ops"]["main"]["approved"][0]
	var runbook *ingest.Page
	_, pages, _ := readTestTree(t, src)
	for i := range pages {
		if pages[i].Path == "publish/operations/runbook.md" {
			runbook = &pages[i]
		}
	}
	var listed struct {
		Docs []struct {
			ID   string         `json:"id"`
			Meta map[string]any `json:"meta_fields"`
		} `json:"docs"`
	}
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/v1/datasets/"+opsMain+"/documents", nil)
	json.Unmarshal(ragflowCall(t, req), &listed)
	for _, d := range listed.Docs {
		if d.Meta["path"] == runbook.Path {
			body, _ := json.Marshal(map[string]any{"ids": []string{d.ID}})
			req, _ := http.NewRequest(http.MethodDelete, srv.URL+"/api/v1/datasets/"+opsMain+"/documents", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			ragflowCall(t, req)
		}
	}
	id := uploadRaw(t, srv.URL, opsMain, ingest.DocumentName(*runbook), runbook.Content)
	body, _ := json.Marshal(map[string]any{"meta_fields": runbook.Meta()})
	req, _ = http.NewRequest(http.MethodPatch, srv.URL+"/api/v1/datasets/"+opsMain+"/documents/"+id, bytes.NewReader(body))
	ragflowCall(t, req)
	uploadRaw(t, srv.URL, opsMain, "stray.md", "# Stray\n\nan upload whose metadata never came\n")
	if got := retrieve(t, srv.URL, cat, "kunora-ops", "approved", "gateway error rate"); len(got) != 0 {
		t.Fatalf("an unparsed document is retrievable: %+v", got)
	}
	again, _ := runRAGFlow(t, srv.URL, src, false)
	if !reflect.DeepEqual(again.Changed, []string{"publish/operations/runbook.md (main)"}) ||
		!reflect.DeepEqual(again.Removed, []string{"stray.md (no ingest metadata)"}) || len(again.Added) != 0 {
		t.Fatalf("re-run: %+v", again)
	}
	if got := retrieve(t, srv.URL, cat, "kunora-ops", "approved", "gateway error rate"); len(got) != 1 {
		t.Fatalf("the resumed page is not retrievable: %+v", got)
	}
	if final, _ := runRAGFlow(t, srv.URL, src, false); final.Changes() != 0 {
		t.Fatalf("third run: %+v", final)
	}
}

// TestRAGFlowStatusMoveMovesTheDocument: a page whose status changes
// belongs to the other status's dataset; it must leave the old one, or a
// reader granted approved pages would still retrieve a working draft.
func TestRAGFlowStatusMoveMovesTheDocument(t *testing.T) {
	srv := emptyRAGFlow(t)
	src := copyTree(t)
	runRAGFlow(t, srv.URL, src, false)
	page := filepath.Join(src, "docs", "operations", "runbook.md")
	body := "---\nstatus: working\n---\n# On-call runbook\n\nPage the on-call engineer when the gateway error rate stays above 5%.\n"
	if err := os.WriteFile(page, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	moved, cat := runRAGFlow(t, srv.URL, src, false)
	if !reflect.DeepEqual(moved.Changed, []string{"publish/operations/runbook.md (main)"}) || moved.Changes() != 1 {
		t.Fatalf("status move: %+v", moved)
	}
	if got := retrieve(t, srv.URL, cat, "kunora-ops", "approved", "gateway error rate"); len(got) != 0 {
		t.Fatalf("the page is still in the approved dataset: %+v", got)
	}
	got := retrieve(t, srv.URL, cat, "kunora-ops", "working", "gateway error rate")
	if len(got) != 1 || got[0].MetaString("status") != "working" {
		t.Fatalf("the page is not in the working dataset: %+v", got)
	}
}
