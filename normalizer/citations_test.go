package normalizer

import (
	"testing"

	"github.com/wikigate/wikigate/ragflow"
)

func TestHeadingAnchor(t *testing.T) {
	cases := map[string]string{
		"## Memory backends\n\ntext":                   "memory-backends",
		"intro\n## memory.window\n":                    "memorywindow",
		"### `kgent.yaml` reference":                   "kgentyaml-reference",
		"## Using [Redis](guides/redis.md) for memory": "using-redis-for-memory",
		"## Deploying with Helm {#helm}":               "helm",
		"## Closing hashes ##":                         "closing-hashes",
		"## 配置 记忆":                                     "配置-记忆",
		"## Timeouts & retries":                        "timeouts--retries",
		"# Agent memory\n\n## Memory backends":         "",
		"```bash\n# install\n```\n## Real heading":     "real-heading",
		"~~~\n## in fence\n~~~":                        "",
		"##NoSpace\nplain text":                        "",
		"no heading at all":                            "",
		"    ## indented code":                         "",
	}
	for content, want := range cases {
		if got := headingAnchor(content); got != want {
			t.Errorf("headingAnchor(%q) = %q, want %q", content, got, want)
		}
	}
}

func TestAnswerMarkersRenumberedToCitations(t *testing.T) {
	a, b := inChunk("a", 0.4), inChunk("b", 0.9)
	a.Content, b.Content = "Alpha uses Redis for memory.", "Beta keeps a window of 20 turns."
	chunks := []ragflow.Chunk{a, b, outChunk("x", 0.99)}
	cases := map[string]string{
		"Alpha uses Redis [ID:0]. Beta keeps 20 turns [ID:1].":             "Alpha uses Redis [1]. Beta keeps 20 turns [2].", // first cited first, though b scores best
		"Alpha uses Redis [ID:0][ID:2].":                                   "Alpha uses Redis [1].",                          // out of scope: removed
		"[ID:9] Alpha uses Redis [ID:0].":                                  "Alpha uses Redis [1].",
		"Alpha uses Redis [ID:0][ID:0] [ID:0].":                            "Alpha uses Redis [1].",
		"Alpha uses Redis [ID:0, 1, 2, 9].":                                "Alpha uses Redis [1].", // b does not support it
		"Alpha ##0$$ uses 【ID: 0】 Redis (ID:0).":                           "Alpha [1] uses [1] Redis [1].",
		"Beta keeps 20 turns[ID:1].":                                       "Beta keeps 20 turns [1].",
		"Beta keeps 20 turns [1]. Alpha uses Redis [0].":                   "Beta keeps 20 turns [1]. Alpha uses Redis [2].", // bare numbers name blocks too
		"Alpha uses Redis [ID:1]. Beta keeps a window of 20 turns [ID:1].": "Beta keeps a window of 20 turns [1].",           // wrong chunk: dropped
	}
	for text, want := range cases {
		res, _ := Answer(text, chunks, kgentScope, AnswerOptions{RequireCitations: true})
		if res.Answer != want {
			t.Errorf("Answer(%q) = %q, want %q", text, res.Answer, want)
		}
	}
}

func TestRelatedPages(t *testing.T) {
	var chunks []ragflow.Chunk
	for i, p := range []string{"p1", "p2", "p3", "p4", "p5", "p6", "p7", "p2"} {
		c := inChunk(string(rune('a'+i)), float64(i)/10)
		c.Metadata["path"] = kgentPath + "/" + p + ".md"
		chunks = append(chunks, c)
	}
	inScope := []bool{true, true, true, true, true, true, true, true}
	got := ragRelatedPages(chunks, inScope, refs{"g"}) // p7 cited
	var paths []string
	for _, r := range got {
		paths = append(paths, r.Path[len(kgentPath)+1:])
	}
	want := []string{"p2.md", "p6.md", "p5.md", "p4.md", "p3.md"}
	if len(paths) != len(want) {
		t.Fatalf("related = %v, want %v", paths, want)
	}
	for i := range want {
		if paths[i] != want[i] {
			t.Fatalf("related = %v, want %v", paths, want)
		}
	}
	if got[0].Score != 0.7 {
		t.Errorf("p2 score = %v, want its best chunk's 0.7", got[0].Score)
	}
}

// inChunk is a chunk inside kgentScope; outChunk one of another project.
func inChunk(id string, score float64) ragflow.Chunk {
	return ragflow.Chunk{ID: id, Content: "## Heading " + id + "\n\nText.", Similarity: score, Metadata: map[string]any{
		"path": kgentPath + "/" + id + ".md", "url": "/system/components/kunora-kgent/" + id + "/", "title": "Page " + id,
		"project": "kunora-kgent", "version": "main", "status": "approved",
	}}
}

func outChunk(id string, score float64) ragflow.Chunk {
	c := inChunk(id, score)
	c.Metadata["project"] = "kunora-gateway"
	return c
}
