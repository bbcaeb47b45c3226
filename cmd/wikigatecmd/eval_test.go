package wikigatecmd

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEvalCommandFlags: the command's flags reach the run, and a missed
// threshold is an error naming it (exit status 1), a met one none.
func TestEvalCommandFlags(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/search") {
			w.Write([]byte(`{"hits":[{"path":"p/other.md"},{"path":"p/a.md"}]}`))
			return
		}
		w.Write([]byte(`{"answer":"x [1]","citations":[{"path":"p/a.md"}],"confidence":"high","noAnswerReason":null}`))
	}))
	defer srv.Close()
	set := filepath.Join(t.TempDir(), "set.yaml")
	if err := os.WriteFile(set, []byte("cases: [{id: a, kind: answerable, question: q, expected: [p/a.md]}]"), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, error) {
		c := evalCommand()
		var out bytes.Buffer
		c.SetOut(&out)
		c.SetErr(&out)
		c.SetArgs(append([]string{"--set", set, "--gate", srv.URL}, args...))
		err := c.Execute()
		return out.String(), err
	}
	// rank 2: hit@5 1, MRR 0.5
	if out, err := run("--min-hit5", "1", "--min-mrr", "0.5"); err != nil || !strings.Contains(out, "search MRR           0.500") {
		t.Errorf("thresholds met: %v\n%s", err, out)
	}
	if _, err := run("--min-mrr", "0.6"); err == nil || !strings.Contains(err.Error(), "MRR 0.500 is under the minimum 0.600") {
		t.Errorf("--min-mrr 0.6 missed: err %v, want the MRR named", err)
	}
	if out, err := run("--json"); err != nil || !strings.Contains(out, `"mrr": 0.5`) {
		t.Errorf("--json: %v\n%s", err, out)
	}
}
