package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/wikigate/wikigate/bench/internal/fixture"
	"github.com/wikigate/wikigate/meili"
	"github.com/wikigate/wikigate/normalizer"
	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/ragflow"
)

// bodySizes are the backend answers the response side is measured with: a
// typical search page and a large one.
var bodySizes = []int{4 << 10, 64 << 10}

// fixedTransport answers every request with body, in memory: the clients'
// request building and response decoding run exactly as in the gate,
// without a network.
type fixedTransport []byte

func (t fixedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		_ = r.Body.Close()
	}
	return &http.Response{
		StatusCode:    http.StatusOK,
		Header:        http.Header{"Content-Type": {"application/json"}},
		Body:          io.NopCloser(bytes.NewReader(t)),
		ContentLength: int64(len(t)),
		Request:       r,
	}, nil
}

var benchAudit = protocol.Audit{RequestID: "req-bench", Caller: fixture.Agent, Scope: "kunora-kgent@main"}

// BenchmarkMeiliResponse is the gate's response side of a search for a
// Meilisearch answer of each size: client (meili.Client.Search: request
// encoding and response decoding), normalize (normalizer.SearchHits with
// the response-side scope check) and encode (the protocol body written to
// the caller).
func BenchmarkMeiliResponse(b *testing.B) {
	for _, size := range bodySizes {
		body, hits, err := fixture.MeiliSearch(size)
		if err != nil {
			b.Fatal(err)
		}
		client, err := meili.New(meili.Config{URL: "http://meili.invalid", APIKey: "k", Index: "wiki_pages",
			HTTPClient: &http.Client{Transport: fixedTransport(body)}})
		if err != nil {
			b.Fatal(err)
		}
		params := meili.SearchParams{Query: "agent memory", Filter: `project = "kunora-kgent"`, Limit: hits,
			AttributesToCrop: []string{"content"}, CropLength: 30, ShowRankingScore: true}
		name := fmt.Sprintf("%dKB", size>>10)
		resp, err := client.Search(context.Background(), params)
		if err != nil || len(resp.Hits) != hits {
			b.Fatalf("Search = %d hits, %v; want %d", len(resp.Hits), err, hits)
		}
		benchBytes(b, name+"/client", len(body), func() error {
			_, err := client.Search(context.Background(), params)
			return err
		})
		var out []protocol.SearchHit
		benchBytes(b, name+"/normalize", len(body), func() error {
			var dropped int
			if out, dropped = normalizer.SearchHits(resp.Hits, fixture.Scope); dropped != 0 {
				return fmt.Errorf("%d hits dropped", dropped)
			}
			return nil
		})
		benchBytes(b, name+"/encode", len(body), func() error {
			_, err := json.Marshal(protocol.SearchResult{Hits: out, Total: len(out), Audit: benchAudit})
			return err
		})
	}
}

// BenchmarkRAGFlowResponse is the same for a RAGFlow retrieval of each
// size: client (ragflow.Client.Retrieve), then the two normalizations the
// answer routes run on it, ContextPack (get_context) and Answer (ask, with
// a generated text citing the first chunks), each followed by encoding its
// result.
func BenchmarkRAGFlowResponse(b *testing.B) {
	for _, size := range bodySizes {
		body, _, err := fixture.RAGFlowRetrieval(size)
		if err != nil {
			b.Fatal(err)
		}
		client, err := ragflow.New(ragflow.Config{URL: "http://ragflow.invalid", APIKey: "k",
			HTTPClient: &http.Client{Transport: fixedTransport(body)}})
		if err != nil {
			b.Fatal(err)
		}
		params := ragflow.RetrieveParams{Question: "How do I configure agent memory?",
			DatasetIDs: []string{"d092f80af64f8e5e119cee1082c471b4"}, Condition: ragflow.PathCondition(fixture.Scope.Paths)}
		retrieval, err := client.Retrieve(context.Background(), params)
		if err != nil {
			b.Fatal(err)
		}
		chunks := retrieval.Chunks
		name := fmt.Sprintf("%dKB", size>>10)
		benchBytes(b, name+"/client", len(body), func() error {
			_, err := client.Retrieve(context.Background(), params)
			return err
		})
		benchBytes(b, name+"/context", len(body), func() error {
			pack, _ := normalizer.ContextPack(params.Question, chunks, fixture.Scope, 0)
			_, err := json.Marshal(pack)
			return err
		})
		text := "Start with the in-process store [ID:0]. Switch to Redis for production [ID:1]; set the window and the TTL [ID:2]."
		benchBytes(b, name+"/answer", len(body), func() error {
			result, stats := normalizer.Answer(text, chunks, fixture.Scope, normalizer.AnswerOptions{RequireCitations: true})
			if stats.Citations == 0 {
				return fmt.Errorf("no citation in %+v", result)
			}
			_, err := json.Marshal(result)
			return err
		})
	}
}

func benchBytes(b *testing.B, name string, size int, f func() error) {
	b.Run(name, func(b *testing.B) {
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			if err := f(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
