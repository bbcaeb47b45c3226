package devragflow

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/wikigate/wikigate/samplewiki"
)

var hex32 = regexp.MustCompile(`^[0-9a-f]{32}$`)

func TestSplitPageBySectionsAndSize(t *testing.T) {
	var long strings.Builder
	long.WriteString("# Title\n\nIntro line.\n\n## Short\n\nOne short section.\n\n## Long\n\n")
	for i := 0; i < 40; i++ {
		long.WriteString("Paragraph " + string(rune('A'+i%26)) + " explains one detail of the runtime in a sentence or two. It goes on a little.\n\n")
	}
	long.WriteString(strings.Repeat("x", 2000) + "\n")
	chunks := splitPage(long.String())
	if len(chunks) < 5 {
		t.Fatalf("got %d chunks, want the long section split", len(chunks))
	}
	if !strings.HasPrefix(chunks[0], "# Title") || !strings.HasPrefix(chunks[1], "## Short") {
		t.Errorf("first chunks = %q, %q; want the intro then the Short section", chunks[0], chunks[1])
	}
	for i, c := range chunks {
		if n := utf8.RuneCountInString(c); n > maxChunkChars {
			t.Errorf("chunk %d has %d chars, want <= %d", i, n, maxChunkChars)
		}
		if strings.Count("\n"+c, "\n## ") > 1 {
			t.Errorf("chunk %d spans two sections: %q", i, c)
		}
	}
	joined := strings.Join(chunks, "")
	for _, word := range []string{"Intro line.", "One short section.", "Paragraph N explains", strings.Repeat("x", 900)} {
		if !strings.Contains(joined, word) {
			t.Errorf("chunks lost %q", word)
		}
	}
}

// Chunk and document ids are stable 32-hex strings: two servers over the
// same corpus return the same ids.
func TestChunkIDsAreStable(t *testing.T) {
	body := map[string]any{"dataset_ids": []any{dsKgentMain, dsGatewayMain}, "question": "kunora",
		"similarity_threshold": 0}
	first := chunksOf(retrieve(t, newTestServer(t), body))
	second := chunksOf(retrieve(t, newTestServer(t), body))
	if len(first) == 0 || len(first) != len(second) {
		t.Fatalf("hit counts differ: %d vs %d", len(first), len(second))
	}
	seen := map[string]bool{}
	for i := range first {
		id, doc := first[i]["id"].(string), first[i]["document_id"].(string)
		if !hex32.MatchString(id) || !hex32.MatchString(doc) {
			t.Errorf("ids %q / %q are not 32 hex", id, doc)
		}
		if id != second[i]["id"] || doc != second[i]["document_id"] {
			t.Errorf("hit %d ids changed between servers", i)
		}
		if seen[id] {
			t.Errorf("duplicate chunk id %s", id)
		}
		seen[id] = true
	}
}

func TestDocumentsCarryCorpusMetadata(t *testing.T) {
	s := newTestServer(t)
	out := decode(t, call(t, s, http.MethodGet, "/api/v1/datasets/"+dsKgentMain+"/documents", nil, "Bearer "+testKey))
	if out["message"] != "success" {
		t.Errorf("documents list is get_json_result, got %v", out)
	}
	data := out["data"].(map[string]any)
	docs := data["docs"].([]any)
	if data["total"] != 3.0 || len(docs) != 3 {
		t.Fatalf("total %v, %d docs; want the 3 kgent main approved pages", data["total"], len(docs))
	}
	for _, d := range docs {
		doc := d.(map[string]any)
		meta := doc["meta_fields"].(map[string]any)
		if got := strings.Join(sorted(keysOf(meta)), ","); got != "path,project,status,title,url,version" {
			t.Errorf("meta_fields keys = %s", got)
		}
		if meta["project"] != "kunora-kgent" || meta["version"] != "main" || meta["status"] != "approved" {
			t.Errorf("meta_fields = %v", meta)
		}
		if !strings.HasSuffix(meta["path"].(string), "/"+doc["name"].(string)) || doc["dataset_id"] != dsKgentMain {
			t.Errorf("document %v named %v in %v", meta["path"], doc["name"], doc["dataset_id"])
		}
	}
}

func TestSampleWikiLoadsByDefault(t *testing.T) {
	corpus, err := samplewiki.Load()
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{APIKey: testKey})
	if err != nil {
		t.Fatal(err)
	}
	out := decode(t, call(t, s, http.MethodGet, "/api/v1/datasets?page_size=100", nil, "Bearer "+testKey))
	if int(out["total_datasets"].(float64)) != len(corpus.Datasets) {
		t.Errorf("total_datasets = %v, want %d", out["total_datasets"], len(corpus.Datasets))
	}
	docs := 0
	for _, d := range out["data"].([]any) {
		docs += int(d.(map[string]any)["document_count"].(float64))
	}
	if docs != len(corpus.Pages) {
		t.Errorf("documents across datasets = %d, want one per page (%d)", docs, len(corpus.Pages))
	}
}
