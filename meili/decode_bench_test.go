package meili

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// searchBody is a search answer shaped like the gate's own searches
// (retrieved page fields, a 30-word crop with a newline, a ranking score)
// with hits hits.
func searchBody(hits int) []byte {
	list := make([]map[string]any, hits)
	for i := range list {
		path := fmt.Sprintf("publish/system/components/kunora-kgent/memory/page-%d.md", i)
		fields := map[string]any{"id": fmt.Sprintf("kunora-kgent-main-%d", i), "path": path,
			"url": "https://wiki.example/" + path, "title": fmt.Sprintf("Agent memory, part %d", i),
			"project": "kunora-kgent", "version": "main", "status": "approved"}
		formatted := map[string]any{"content": "…the agent keeps a window of recent turns in memory;\n" +
			strings.Repeat("older turns are summarised ", 4) + "and stored with a \"ttl\"…"}
		for k, v := range fields {
			formatted[k] = v
		}
		fields["_formatted"] = formatted
		fields["_rankingScore"] = 0.9 - float64(i)*0.001
		list[i] = fields
	}
	body, err := json.Marshal(map[string]any{"hits": list, "query": "agent memory", "processingTimeMs": 1,
		"limit": hits, "offset": 0, "estimatedTotalHits": hits})
	if err != nil {
		panic(err)
	}
	return body
}

// BenchmarkDecodeSearch compares the one-pass reader with the goccy/go-json
// decoder it replaced on a 4 KB and a 64 KB search answer.
func BenchmarkDecodeSearch(b *testing.B) {
	decoders := []struct {
		name   string
		decode func([]byte) (*SearchResponse, error)
	}{
		{"onepass", func(body []byte) (*SearchResponse, error) { return decodeSearch(200, body) }},
		{"goccy", decodeSearchGoccy},
	}
	for _, hits := range []int{5, 80} {
		body := searchBody(hits)
		for _, d := range decoders {
			b.Run(fmt.Sprintf("%dKB/%s", (len(body)+512)>>10, d.name), func(b *testing.B) {
				b.SetBytes(int64(len(body)))
				b.ReportAllocs()
				cpu := processCPU()
				for b.Loop() {
					if resp, err := d.decode(body); err != nil || len(resp.Hits) != hits {
						b.Fatalf("decoded %v, %v", resp, err)
					}
				}
				if cpu > 0 {
					b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
				}
			})
		}
	}
}
