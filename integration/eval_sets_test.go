package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wikigate/wikigate/devbackends/devmeili"
	"github.com/wikigate/wikigate/devbackends/devragflow"
	"github.com/wikigate/wikigate/evalrun"
	"github.com/wikigate/wikigate/ingest"
	"github.com/wikigate/wikigate/samplewiki"
)

// A shipped evaluation set of a real docs tree: the tree, the agent its
// restricted cases ask as (granted the paths given only), and the floors
// CI holds the development backends to: the figures measured when the set
// was written (README "Measuring answer quality"), less a small margin, so
// a regression in the gate or the stand-ins fails here.
type treeSet struct {
	tree     gateTree
	set      string
	agent    string   // granted agentPaths only
	agentEnv string   // the set's tokenEnv for that agent
	paths    []string // that agent's grant
	floors   evalrun.Thresholds
}

var treeSets = []treeSet{
	{tree: gateTrees[0], set: "../evalsets/prettier.yaml", agent: "prettier-reference-agent", agentEnv: "WIKIGATE_EVAL_REFERENCE_AGENT",
		paths: []string{"publish/prettier/options.md", "publish/prettier/cli.md", "publish/prettier/api.md"},
		// measured: hit@1 .750 hit@5 .875 MRR .817 answer rate .958 citation P .638 R .875 no-answer P .750 R .375
		floors: floorsUnder(0.750, 0.875, 0.817, 0.958, 0.638, 0.875, 0.750, 0.375)},
	{tree: gateTrees[1], set: "../evalsets/httpx.yaml", agent: "httpx-advanced-agent", agentEnv: "WIKIGATE_EVAL_ADVANCED_AGENT",
		paths: []string{"publish/httpx/advanced"},
		// measured: hit@1 .692 hit@5 .769 MRR .724 answer rate .885 citation P .529 R .731 no-answer P .571 R .444
		floors: floorsUnder(0.692, 0.769, 0.724, 0.885, 0.529, 0.731, 0.571, 0.444)},
}

// floorMargin is how far under a measured figure its floor sits: one
// case's worth on a set of 20 to 50, so a real regression fails and a
// tie broken differently does not.
const floorMargin = 0.05

// floorsUnder returns thresholds floorMargin under the measured figures
// (never under 0) and no leak allowed.
func floorsUnder(hit1, hit5, mrr, answerRate, citeP, citeR, noAnswerP, noAnswerR float64) evalrun.Thresholds {
	f := func(v float64) float64 { return max(0, v-floorMargin) }
	return evalrun.Thresholds{MinHit1: f(hit1), MinHit5: f(hit5), MinMRR: f(mrr), MinAnswerRate: f(answerRate),
		MinCitePrec: f(citeP), MinCiteRecall: f(citeR), MinNoAnswerPrec: f(noAnswerP), MinNoAnswerRecall: f(noAnswerR)}
}

// TestEvalTreeSets runs each real tree's shipped set through a gate over
// that tree on the development backends: every case is scored, nothing
// restricted leaks, and every figure is at or above its floor.
func TestEvalTreeSets(t *testing.T) {
	for _, ts := range treeSets {
		t.Run(ts.tree.name, func(t *testing.T) {
			g := gateOverTreeFor(t, ts)
			tokens := map[string]string{ts.agentEnv: agentToken(t, ts.agent)}
			r := runSet(t, g, ts.set, tokens, ts.floors)
			if r.Summary.Cases < 20 {
				t.Errorf("%s has %d cases, want at least 20", ts.set, r.Summary.Cases)
			}
		})
	}
}

// runSet runs a set as `wikigate eval --json` with floors and returns the
// report; a missed floor, a leak or a gate error fails the test with the
// per-case table.
func runSet(t *testing.T, g *gate, set string, tokens map[string]string, floors evalrun.Thresholds) evalrun.Report {
	t.Helper()
	var out bytes.Buffer
	code, err := evalrun.Main(context.Background(), evalrun.Options{
		SetFile: set, GateURL: g.url, JSON: true, Concurrency: 2, Timeout: 15 * time.Second,
		Thresholds: floors, Getenv: func(k string) string { return tokens[k] },
	}, &out)
	keepReport(t, set, out.Bytes())
	var r evalrun.Report
	if jerr := json.Unmarshal(out.Bytes(), &r); jerr != nil {
		t.Fatalf("exit %d (%v), report does not decode: %v\n%s", code, err, jerr, out.String())
	}
	s := r.Summary
	t.Logf("%s: cases %d, hit@1 %s hit@5 %s MRR %s answer rate %s citation P %s R %s no-answer P %s R %s leaks %d",
		filepath.Base(set), s.Cases, f3(s.Hit1), f3(s.Hit5), f3(s.MRR), f3(s.AnswerRate), f3(s.CitePrec), f3(s.CiteRecall),
		f3(s.NoAnswerPrec), f3(s.NoAnswerRec), s.Leaks)
	if code != evalrun.ExitOK {
		var table bytes.Buffer
		_ = evalrun.WriteTable(&table, r)
		t.Fatalf("exit %d: %v\n%s", code, err, table.String())
	}
	if s.Errors != 0 || s.Leaks != 0 {
		t.Errorf("summary = %+v, want every case scored and no leak", s)
	}
	return r
}

// keepReport writes a set's JSON report to $WIKIGATE_EVAL_REPORT_DIR when
// that is set (bench/EVAL.md's per-case figures come from there), so a
// change to the gate's decisions can be read case by case.
func keepReport(t *testing.T, set string, report []byte) {
	t.Helper()
	dir := os.Getenv("WIKIGATE_EVAL_REPORT_DIR")
	if dir == "" {
		return
	}
	name := strings.TrimSuffix(filepath.Base(set), filepath.Ext(set)) + ".json"
	if err := os.WriteFile(filepath.Join(dir, name), report, 0o644); err != nil {
		t.Errorf("keeping the report: %v", err)
	}
}

func f3(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.3f", *v)
}

// gateOverTreeFor is gateOverTree with the set's agent granted its paths
// only, the readers' default scope the tree's project, and the anonymous per-minute budgets raised so a run of the set
// does not wait out rate limits.
func gateOverTreeFor(t *testing.T, ts treeSet) *gate {
	t.Helper()
	meiliURL, ragURL, mapping, cat := ingestTreeForEval(t, ts.tree)
	policy := copyDir(t, filepath.Join("..", "rego"))
	file := filepath.Join(policy, "data.json")
	grantTree(t, file, ts.tree, cat)
	editData(t, file, func(data map[string]any) {
		data["agents"].(map[string]any)[ts.agent] = map[string]any{
			"disabled": false, "tools": []string{"search", "ask", "get_page", "get_context"}, "write_tools": []string{},
			"grants": map[string]any{ts.tree.project: map[string]any{"paths": ts.paths, "versions": []string{"main"}, "working_docs": false}},
		}
		// a docs site of this tree only: a reader's question without a
		// page is asked of the tree
		data["humans"].(map[string]any)["default_scope"].(map[string]any)["projects"] = []string{ts.tree.project}
		raiseAnonymousLimits(data)
	})
	return startGate(t, gateOptions{policyDir: policy, meiliURL: meiliURL, ragflowURL: ragURL, siteMapping: mapping,
		ragflowExtra: evalBackendTimeout})
}

// evalBackendTimeout replaces the harness's 3s RAGFlow timeout: a set
// asks dozens of questions two at a time, and on a loaded CI machine one
// slow retrieval would fail the run as a gate error, which says nothing
// about answer quality. (Meilisearch's 2s is the harness's, which refuses
// a second timeout line.)
const evalBackendTimeout = "timeout 20s"

// raiseAnonymousLimits lifts the anonymous per-minute search and ask
// budgets: an evaluation run asks faster than one reader.
func raiseAnonymousLimits(data map[string]any) {
	perMinute := data["limits"].(map[string]any)["per_minute"].(map[string]any)
	anon := perMinute["anonymous"].(map[string]any)
	anon["search"], anon["ask"] = 1000, 1000
}

func editData(t *testing.T, file string, edit func(map[string]any)) {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var data map[string]any
	if err := json.Unmarshal(raw, &data); err != nil {
		t.Fatal(err)
	}
	edit(data)
	out, _ := json.MarshalIndent(data, "", "  ")
	writeFile(t, file, string(out))
}

// ingestTreeForEval ingests the tree into fresh development backends, as
// gateOverTree does, and returns their URLs, the mapping file and the
// catalog ingest wrote.
func ingestTreeForEval(t *testing.T, tree gateTree) (meiliURL, ragURL, mapping string, cat *ingest.Catalog) {
	t.Helper()
	meili, err := devmeili.New(devmeili.Config{MasterKey: meiliKey})
	if err != nil {
		t.Fatal(err)
	}
	rag, err := devragflow.New(devragflow.Config{APIKey: ragflowKey, Corpus: &samplewiki.Corpus{}})
	if err != nil {
		t.Fatal(err)
	}
	meiliSrv, ragSrv := httptest.NewServer(meili), httptest.NewServer(rag)
	t.Cleanup(meiliSrv.Close)
	t.Cleanup(ragSrv.Close)
	src := filepath.Join("..", "ingest", "testdata", "trees", tree.name)
	if mapping, err = filepath.Abs(src + ".map.yaml"); err != nil {
		t.Fatal(err)
	}
	m, err := ingest.LoadMapping(mapping)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := ingest.Run(ctx, ingest.Options{Src: src, Mapping: m,
		Meili: &ingest.MeiliSync{Client: &ingest.MeiliClient{URL: meiliSrv.URL, Key: meiliKey, PollEvery: time.Millisecond},
			Index: "wiki_pages", Projects: m.ProjectIDs()},
		RAGFlow: &ingest.RAGFlowSync{Client: &ingest.RAGFlowClient{URL: ragSrv.URL, Key: ragflowKey, PollEvery: time.Millisecond},
			Mapping: m},
	})
	if err != nil || res.Failed() != 0 {
		t.Fatalf("ingest: %v %+v", err, res)
	}
	return meiliSrv.URL, ragSrv.URL, mapping, res.Catalog
}
