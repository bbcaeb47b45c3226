package normalizer

import (
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/ragflow"
	"github.com/wikigate/wikigate/samplewiki"
)

// The answer path was made cheaper (issue 24 point 7, bench/README.md
// "What an ask costs"); these tests hold Answer, CheckCoverage, Coverage,
// ContextPack and Progressive to the code they replaced
// (oracle_old_test.go), output for output, on asks built from the sample
// wiki, on the recorded fixtures, and on fuzzed texts and chunk layouts.

// oracleAsk is one ask: a generated text, the prompt's chunks, the scope
// and the question.
type oracleAsk struct {
	name, text, question string
	chunks               []ragflow.Chunk
	eff                  protocol.Scope
}

// oracleOptions are the option sets every ask is tried with.
func oracleOptions() []AnswerOptions {
	key := func(paths []string) string { return "a:" + strings.Join(paths, "|") }
	return []AnswerOptions{
		{RequireCitations: true, DedupeKey: "k"},
		{RequireCitations: false, NoAnswerKey: func() string { return "n" }, AnswerKey: key,
			WriteTools: []string{protocol.ActionCreateFeedback}, FeedbackEndpoint: "/answer/feedback"},
		{RequireCitations: true, SupportThreshold: 0.3, MinSupported: 0.2, HighScore: 0.6, MediumScore: 0.2,
			EmptyResponses: []string{"Nothing &amp; nobody here.", "  "}, AnswerKey: key,
			WriteTools: []string{protocol.ActionCreateFeedback, protocol.ActionCreateImprovementTask}},
		{RequireCitations: false, SupportThreshold: 0.8, DedupeKey: "k"},
	}
}

// assertMatchesOracle runs one ask through the new and the old code with
// every option set and fails on the first difference.
func assertMatchesOracle(t *testing.T, a oracleAsk) {
	t.Helper()
	for oi, o := range oracleOptions() {
		res, st := Answer(a.text, a.chunks, a.eff, o)
		oldRes, oldSt := oldAnswer(a.text, a.chunks, a.eff, oldAnswerOptions(o))
		mustEqual(t, a, oi, "Answer", res, oldRes)
		mustEqual(t, a, oi, "Answer stats", publicStats(st), oldSt)
		for _, minCov := range []float64{0, 0.9} {
			cres, cst := CheckCoverage(res, st, a.question, minCov, a.chunks, a.eff, o)
			ocres, ocst := oldCheckCoverage(oldRes, oldSt, a.question, minCov, a.chunks, a.eff, oldAnswerOptions(o))
			mustEqual(t, a, oi, "CheckCoverage", cres, ocres)
			mustEqual(t, a, oi, "CheckCoverage stats", publicStats(cst), ocst)
		}
		assertProgressiveMatches(t, a, oi, o, res)
	}
	mustEqual(t, a, 0, "Coverage", Coverage(a.question, a.chunks), oldCoverage(a.question, a.chunks))
	for _, budget := range []int{0, 150, 400} {
		pack, dropped := ContextPack(a.question, a.chunks, a.eff, budget)
		oldPack, oldDropped := oldContextPack(a.question, a.chunks, a.eff, budget)
		mustEqual(t, a, 0, "ContextPack", pack, oldPack)
		mustEqual(t, a, 0, "ContextPack dropped", dropped, oldDropped)
	}
}

// assertProgressiveMatches streams the text as a model would (a prefix
// ending at every blank) through both Progressives.
func assertProgressiveMatches(t *testing.T, a oracleAsk, oi int, o AnswerOptions, res protocol.AnswerResult) {
	t.Helper()
	p, old := NewProgressive(a.chunks, a.eff, o), oldNewProgressive(a.chunks, a.eff, oldAnswerOptions(o))
	step := func(prefix string) {
		d, c := p.Advance(prefix)
		od, oc := old.Advance(prefix)
		mustEqual(t, a, oi, fmt.Sprintf("Advance(%q) delta", prefix), d, od)
		mustEqual(t, a, oi, fmt.Sprintf("Advance(%q) citations", prefix), c, oc)
	}
	for i := 0; i < len(a.text); i++ {
		if a.text[i] == ' ' || a.text[i] == '\n' {
			step(a.text[:i])
		}
	}
	step(a.text)
	mustEqual(t, a, oi, "Finish", p.Finish(res), old.Finish(res))
}

// publicStats is what AnswerStats shows outside the package, as the old
// code's stats.
func publicStats(s AnswerStats) oldAnswerStats {
	return oldAnswerStats{Dropped: s.Dropped, Citations: s.Citations, NoAnswer: s.NoAnswer}
}

func mustEqual(t *testing.T, a oracleAsk, oi int, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s, options %d: %s differs from the old code\ntext %q\nquestion %q\ngot  %#v\nwant %#v",
			a.name, oi, what, a.text, a.question, got, want)
	}
}

// TestAnswerMatchesOracleOnSampleWiki: asks built from the sample wiki's
// pages (chunks are their "## " sections), answered in several ways (cited
// sentences, miscited ones, uncited ones, whole chunks with headings,
// lists and code, made-up claims), with the evaluation set's questions.
func TestAnswerMatchesOracleOnSampleWiki(t *testing.T) {
	asks := sampleWikiAsks(t)
	if len(asks) < 100 {
		t.Fatalf("only %d asks built from the sample wiki", len(asks))
	}
	for _, a := range asks {
		assertMatchesOracle(t, a)
	}
}

// TestAnswerMatchesOracleOnFixtures: the recorded RAGFlow inputs of
// testdata/ragflow and bench run C's ask (testdata/devragflow).
func TestAnswerMatchesOracleOnFixtures(t *testing.T) {
	for _, file := range ragInputs(t) {
		in := readRagInput(t, file)
		assertMatchesOracle(t, oracleAsk{name: file, text: in.Text, chunks: in.Chunks, eff: in.Scope, question: "How do I configure agent memory?"})
	}
	text, chunks := devRAGFlowAsk(t)
	assertMatchesOracle(t, oracleAsk{name: "devragflow", text: text, chunks: chunks, eff: kgentScope, question: "How do I configure agent memory?"})
}

// FuzzAnswerMatchesOracle: any text, chunk layout (fuzzChunks) and
// question, with the sample wiki's chunks of one window added when sample
// is odd, gives what the old code gave.
func FuzzAnswerMatchesOracle(f *testing.F) {
	for _, file := range ragInputs(f) {
		in := readRagInput(f, file)
		f.Add(in.Text, []byte{0x00, 0x09, 0x12, 0x25, 0x33}, "How do I configure agent memory?", uint8(0))
	}
	for i, text := range []string{
		"A [ID:0]. B [ID: 1]. C 【ID:2】 D (ID:3) ##4$$ [ID:0, 1, 99] [ID:99999999999999999999]",
		"[ID:0][ID:0][ID:0]. . . [ID:7]",
		"## Heading [ID:1]\n```\n[ID:0]\n```\n- x [ID:2]\n\n第一句【ID：0】。",
		"\xff\xfe [ID:\xff0] [ID:0",
		"Sorry! No relevant content was found in the knowledge base!",
		"Set `memory.backend` to \"redis\" [ID:8]. The Redis URL goes in REDIS_URL [ID:9]. İstanbul KELVIN K 3.5 [ID:10]",
		"1. First [ID:8]\n2. Second [ID:9]\n\n> quoted “text” here [ID:0]",
	} {
		f.Add(text, []byte{0x01, 0x0a, 0x22, 0x3b, 0xff}, "What is memory.window? 什么是记忆", uint8(i))
	}
	f.Fuzz(func(t *testing.T, text string, layout []byte, question string, sample uint8) {
		chunks := fuzzChunks(layout, text)
		eff := kgentScope
		if len(layout)%2 == 1 {
			eff = withWorking(eff)
		}
		if sample%2 == 1 {
			asks := sampleWikiAsks(t)
			chunks = append(chunks, asks[int(sample)%len(asks)].chunks...)
		}
		assertMatchesOracle(t, oracleAsk{name: "fuzz", text: text, chunks: chunks, eff: eff, question: question})
	})
}

var (
	sampleAsksOnce sync.Once
	sampleAsks     []oracleAsk
	sampleAsksErr  error
)

// sampleWikiAsks builds the sample wiki's asks once.
func sampleWikiAsks(t testing.TB) []oracleAsk {
	t.Helper()
	sampleAsksOnce.Do(func() { sampleAsks, sampleAsksErr = buildSampleWikiAsks() })
	if sampleAsksErr != nil {
		t.Fatal(sampleAsksErr)
	}
	return sampleAsks
}

var evalQuestion = regexp.MustCompile(`(?m)^\s+question: (.+)$`)

func buildSampleWikiAsks() ([]oracleAsk, error) {
	corpus, err := samplewiki.Load()
	if err != nil {
		return nil, err
	}
	evalset, err := os.ReadFile("../evalsets/samplewiki.yaml")
	if err != nil {
		return nil, err
	}
	var questions []string
	for _, m := range evalQuestion.FindAllStringSubmatch(string(evalset), -1) {
		questions = append(questions, m[1])
	}
	var chunks []ragflow.Chunk
	for _, p := range corpus.Pages {
		for k, section := range strings.SplitAfter(p.Content, "\n## ") {
			chunks = append(chunks, ragflow.Chunk{
				ID: fmt.Sprintf("%s-%d", p.ID, k), Content: strings.TrimSuffix(section, "\n## "), DatasetID: "ds",
				DocumentName: p.Path, Similarity: float64(len(chunks)%9) / 10,
				Metadata: map[string]any{"path": p.Path, "url": p.URL, "title": p.Title, "project": p.Project,
					"version": p.Version, "status": p.Status},
			})
		}
	}
	var asks []oracleAsk
	for w := 0; w+8 <= len(chunks); w += 3 {
		window := chunks[w : w+8]
		eff := protocol.Scope{Version: window[0].MetaString("version"), Paths: []string{"publish"}, IncludeWorkingDocs: w%2 == 0}
		for _, c := range window {
			eff.Projects = append(eff.Projects, c.MetaString("project"))
		}
		q := questions[(w/3)%len(questions)]
		if w%2 == 1 {
			q = "How does " + window[0].MetaString("title") + " work?"
		}
		for i, text := range sampleAnswers(window) {
			asks = append(asks, oracleAsk{name: fmt.Sprintf("window %d answer %d", w, i), text: text, chunks: window, eff: eff, question: q})
		}
	}
	return asks, nil
}

// sampleAnswers are ways a model answers from a window's chunks.
func sampleAnswers(window []ragflow.Chunk) []string {
	sentence := func(k, n int) string {
		var out []string
		for _, line := range strings.Split(window[k].Content, "\n") {
			if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "```") {
				continue
			}
			for _, s := range strings.SplitAfter(line, ". ") {
				if out = append(out, strings.TrimSpace(s)); len(out) > n {
					return out[n]
				}
			}
		}
		if len(out) == 0 {
			return "Nothing to say."
		}
		return out[len(out)-1]
	}
	var cited, miscited, uncited, mixed strings.Builder
	for k := 0; k < 3; k++ {
		fmt.Fprintf(&cited, "%s [ID:%d] %s [ID:%d]\n", sentence(k, 0), k, sentence(k, 1), k)
		fmt.Fprintf(&miscited, "%s [ID:%d]. ", sentence(k, 0), (k+1)%8)
		fmt.Fprintf(&uncited, "%s ", sentence(k, 2))
	}
	fmt.Fprintf(&mixed, "## Answer\n\n- %s 【ID:%d】\n- The gateway retries 5 times per minute [ID:0].\n"+
		"- %s [ID:3, ID:4]\n\n```yaml\nmemory:\n  backend: redis [ID:4]\n```\n\n%s (ID:5) “%s”",
		sentence(4, 0), 4, sentence(3, 1), sentence(5, 0), sentence(6, 0))
	whole := strings.ReplaceAll(window[0].Content, ".\n", ". [ID:0]\n") + "\n\n" + strings.ReplaceAll(window[1].Content, "\n\n", " 【ID:1】\n\n")
	return []string{cited.String(), miscited.String(), uncited.String(), mixed.String(), whole,
		RAGFlowEmptyResponse, "Nothing &amp; nobody here!"}
}

// TestSlugifyMatchesOracle: a heading's anchor is the old one for
// headings of letters whose lower case changes length, marks, invalid
// bytes, links and blanks.
func TestSlugifyMatchesOracle(t *testing.T) {
	parts := []string{"İ", "Ⱥ", "K", "ΣΑΣ", "\xff", "[link](u)", "![i](x)", "é", "e\u0301", "_", "-", " ", "  ", "\t", "Memory", "v1.0", "記憶", "{#id}"}
	rng := rand.New(rand.NewPCG(9, 10))
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		for k := rng.IntN(8); k > 0; k-- {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		if got, want := slugify(b.String()), oldslugify(b.String()); got != want {
			t.Fatalf("slugify(%q) = %q, the old %q", b.String(), got, want)
		}
	}
}
