package gateway

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wikigate/wikigate/identity"
	"github.com/wikigate/wikigate/policies"
	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/ragflow"
)

// BenchmarkAsk is bench run C's call without Caddy or the machine's noise
// (issue 13 item 4): POST /agent/tools/ask through the gateway's handler,
// with the real RAGFlow client over loopback HTTP to an in-process RAGFlow
// that answers with the development RAGFlow's recorded retrieval and SSE
// stream (ragflow/testdata/devragflow), one flush per event as RAGFlow
// sends them. Authentication and the policy decision are fixed fakes, so
// what it weighs is the ask itself: two round trips to RAGFlow, their
// decoding, the prompt, the answer's verification and its JSON.
// cpu-ns/op includes the fake RAGFlow's serving, the same in every run,
// unless WIKIGATE_ASKBENCH_RAGFLOW names a RAGFlow in another process
// (benchRAGFlow).
func BenchmarkAsk(b *testing.B) {
	g := benchAskGateway(b)
	body := `{"question":"How do I configure agent memory?"}`
	ask := func() {
		r := httptest.NewRequest(http.MethodPost, "/agent/tools/ask", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Authorization", "Bearer bench")
		w := httptest.NewRecorder()
		g.ServeHTTP(w, r)
		if w.Code != http.StatusOK || !bytes.Contains(w.Body.Bytes(), []byte(`"citations":[{`)) {
			b.Fatalf("%d %s", w.Code, w.Body)
		}
	}
	ask()
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		cpu := benchCPU()
		for b.Loop() {
			ask()
		}
		b.ReportMetric(float64(benchCPU()-cpu)/float64(b.N), "cpu-ns/op")
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.SetParallelism(16) // 32 callers on 2 cores, as run C
		cpu := benchCPU()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				ask()
			}
		})
		b.ReportMetric(float64(benchCPU()-cpu)/float64(b.N), "cpu-ns/op")
	})
}

func benchAskGateway(b *testing.B) *Gateway {
	b.Helper()
	url, key := benchRAGFlow(b)
	client, err := ragflow.New(ragflow.Config{URL: url, APIKey: key})
	if err != nil {
		b.Fatal(err)
	}
	g, err := New(Config{Answer: AnswerConfig{Stream: true}}, Deps{Auth: benchAuth{}, Policy: benchPolicy{}, Search: healthFunc(nil), Answers: client})
	if err != nil {
		b.Fatal(err)
	}
	return g
}

// benchRAGFlow is the RAGFlow BenchmarkAsk asks: the development RAGFlow
// at WIKIGATE_ASKBENCH_RAGFLOW with key WIKIGATE_ASKBENCH_RAGFLOW_KEY when
// set (in its own process, so cpu-ns/op is the gate's alone, as bench run
// C measures it), else an in-process one serving the recorded bodies.
func benchRAGFlow(b *testing.B) (url, key string) {
	if url := os.Getenv("WIKIGATE_ASKBENCH_RAGFLOW"); url != "" {
		return url, os.Getenv("WIKIGATE_ASKBENCH_RAGFLOW_KEY")
	}
	retrieval := readBenchFixture(b, "retrieval.bench.json")
	events := bytes.SplitAfter(readBenchFixture(b, "completion.bench.sse"), []byte("\n\n"))
	rag := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		drainBody(r)
		if strings.HasSuffix(r.URL.Path, "/chat/completions") {
			w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
			rc := http.NewResponseController(w)
			for _, e := range events {
				if len(e) > 0 {
					_, _ = w.Write(e)
					_ = rc.Flush()
				}
			}
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(retrieval)
	}))
	b.Cleanup(rag.Close)
	return rag.URL, "bench-key"
}

func readBenchFixture(b *testing.B, name string) []byte {
	b.Helper()
	raw, err := os.ReadFile("../ragflow/testdata/devragflow/" + name)
	if err != nil {
		b.Fatal(err)
	}
	return raw
}

// drainBody reads the request body to its end, as a server does.
func drainBody(r *http.Request) { _, _ = io.Copy(io.Discard, r.Body) }

// benchAuth lets every call in as bench run C's agent.
type benchAuth struct{ noCredentialChecks }

func (benchAuth) AuthenticateAgent(*http.Request) (identity.Principal, error) {
	return identity.Principal{Type: identity.TypeAgent, ID: "kunora-coding-agent", Credential: identity.CredentialJWT}, nil
}

func (benchAuth) AuthenticateAnswer(*http.Request) (identity.Principal, error) {
	return identity.Principal{}, errors.New("not used")
}

// benchPolicy allows the agent's grant of bench run C: kunora-kgent's
// component pages on main, approved, one dataset.
type benchPolicy struct{}

func (benchPolicy) Decide(context.Context, policies.Input) (policies.Decision, error) {
	const path = "publish/system/components/kunora-kgent"
	return policies.Decision{
		Allow: true,
		Scope: protocol.Scope{Projects: []string{"kunora-kgent"}, Paths: []string{path}, Version: "main",
			ProjectPaths: map[string][]string{"kunora-kgent": {path}}, Datasets: []string{"d092f80af64f8e5e119cee1082c471b4"}},
		Datasets: []policies.Dataset{{ID: "d092f80af64f8e5e119cee1082c471b4", Project: "kunora-kgent", Version: "main", Status: "approved"}},
		Index:    "wiki_pages",
		Revision: "bench",
	}, nil
}

func (p benchPolicy) DecideTool(ctx context.Context, in policies.Input) (policies.Decision, error) {
	return p.Decide(ctx, in)
}

func (benchPolicy) Revision() string { return "bench" }

// benchCPU is the CPU time this process has used (user and system).
func benchCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
