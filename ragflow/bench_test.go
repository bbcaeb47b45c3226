package ragflow

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
)

// The ask path's RAGFlow side without a network (issue 13 item 4): what
// the gate does per ask with the development RAGFlow's answers to bench
// run C's question (testdata/devragflow, recorded from that backend):
// encode the retrieval request, decode its 8 chunks, build the prompt,
// encode the completion request and read its SSE stream.

const benchQuestion = "How do I configure agent memory?"

// cannedTransport answers each route with its recorded body, in memory,
// so the client's request encoding and response decoding run exactly as
// in the gate.
type cannedTransport struct{ retrieval, stream []byte }

func (t cannedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		_ = r.Body.Close()
	}
	body, ct := t.retrieval, "application/json"
	if strings.HasSuffix(r.URL.Path, "/chat/completions") {
		body, ct = t.stream, "text/event-stream; charset=utf-8"
	}
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {ct}},
		Body: io.NopCloser(bytes.NewReader(body)), ContentLength: int64(len(body)), Request: r}, nil
}

func benchClient(b *testing.B) *Client {
	b.Helper()
	t := cannedTransport{retrieval: fixture(b, "devragflow/retrieval.bench.json"), stream: fixture(b, "devragflow/completion.bench.sse")}
	c, err := New(Config{URL: "http://ragflow.invalid", APIKey: testKey, HTTPClient: &http.Client{Transport: t}})
	if err != nil {
		b.Fatal(err)
	}
	return c
}

var benchParams = RetrieveParams{Question: benchQuestion, DatasetIDs: []string{"d092f80af64f8e5e119cee1082c471b4"},
	Condition: PathCondition([]string{"publish/system/components/kunora-kgent"}), PageSize: 8}

// BenchmarkAskBackends is the whole RAGFlow side of one ask; the sub
// benchmarks are its steps.
func BenchmarkAskBackends(b *testing.B) {
	c := benchClient(b)
	ctx := context.Background()
	r, err := c.Retrieve(ctx, benchParams)
	if err != nil || len(r.Chunks) != 8 {
		b.Fatalf("Retrieve = %v, %v", r, err)
	}
	msgs := BuildPrompt(benchQuestion, r.Chunks, nil)
	benchStep(b, "all", func() error {
		r, err := c.Retrieve(ctx, benchParams)
		if err != nil {
			return err
		}
		_, err = c.CompleteFunc(ctx, BuildPrompt(benchQuestion, r.Chunks, nil), true, nil)
		return err
	})
	benchStep(b, "retrieve", func() error {
		_, err := c.Retrieve(ctx, benchParams)
		return err
	})
	benchStep(b, "prompt", func() error {
		BuildPrompt(benchQuestion, r.Chunks, nil)
		return nil
	})
	benchStep(b, "complete", func() error {
		comp, err := c.CompleteFunc(ctx, msgs, true, nil)
		if err == nil && !strings.HasPrefix(comp.Answer, "For a walkthrough") {
			b.Fatalf("answer = %q", comp.Answer)
		}
		return err
	})
}

func benchStep(b *testing.B, name string, f func() error) {
	b.Run(name, func(b *testing.B) {
		b.ReportAllocs()
		cpu := processCPU()
		for b.Loop() {
			if err := f(); err != nil {
				b.Fatal(err)
			}
		}
		if cpu > 0 {
			b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
		}
	})
}

// BenchmarkWireRetrieval is the decoding of the recorded retrieval body
// alone (8 chunks, 12 KB): what Retrieve does after the body is read.
func BenchmarkWireRetrieval(b *testing.B) {
	body := fixture(b, "devragflow/retrieval.bench.json")
	benchStep(b, "decode", func() error {
		r := getWireReader()
		defer putWireReader(r)
		r.src.Write(body)
		if _, d, decoded, _ := r.readRetrieval(); !decoded || len(d.chunks) != 8 {
			b.Fatalf("decoded %v, %d chunks", decoded, len(d.chunks))
		}
		return nil
	})
}

// BenchmarkFindAllMarkers is the marker scan of bench run C's answer (the
// development RAGFlow's text for its question), with the bracket forms
// read by hand (fast) and by the anchored regexps alone (regexp).
func BenchmarkFindAllMarkers(b *testing.B) {
	text := "For a walkthrough, see How to configure agent memory [ID:0]. See Agent memory configuration and the " +
		"step-by-step guide How to configure agent memory [ID:1][ID:0]. Configure it under `memory.redis`; see " +
		"Using Redis as the agent memory store [ID:2]. The defaults [ID:3, ID:1] keep items[0] for a day [2]."
	want := len(scanMarkers(true, text, false))
	for _, fast := range []bool{true, false} {
		name := map[bool]string{true: "fast", false: "regexp"}[fast]
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if len(scanMarkers(true, text, fast)) != want {
					b.Fatal("markers")
				}
			}
		})
	}
}
