package audit

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// writeChain writes n audit records through zap's JSON encoder into a chain
// file, as Caddy's log pipeline does, and returns the file's path.
func writeChain(t *testing.T, path string, n int) {
	t.Helper()
	cf, err := OpenChainFile(path, BatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer cf.Close()
	enc := zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig())
	l := NewLogger(zap.New(zapcore.NewCore(enc, zapcore.AddSync(cf), zap.InfoLevel)), false)
	for range n {
		l.Write(record())
	}
}

func lines(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.SplitAfter(strings.TrimSuffix(string(raw), "\n"), "\n")
}

func verifyFile(t *testing.T, path string) Report {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := Verify(Input{Name: "audit.log", R: f})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestChainVerifiesUntouchedLogAcrossRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	writeChain(t, path, 3) // start, 3 calls, close
	writeChain(t, path, 2) // a restart appending: a new stream
	ls := lines(t, path)
	if !strings.Contains(ls[0], `"audit_event":"start"`) || !strings.Contains(ls[0], `"seq":1,"stream":"`) || !strings.Contains(ls[0], `"prev_hash":""}`) {
		t.Fatalf("first line is not a start record with its chain fields: %s", ls[0])
	}
	if !strings.Contains(ls[1], `"request_id":"req-1"`) || !strings.Contains(ls[1], `"seq":2,`) || !strings.Contains(ls[4], `"audit_event":"close"`) {
		t.Fatalf("records and close record: %s%s", ls[1], ls[4])
	}
	old := strings.SplitN(ls[4], `"stream":"`, 2)[1][:16]
	if !strings.Contains(ls[5], `"seq":1,`) || !strings.Contains(ls[5], HashLine([]byte(ls[4]))) ||
		!strings.Contains(ls[5], `"prev_stream":"`+old+`","prev_seq":5,"prev_closed":true`) {
		t.Errorf("the restarted stream's start record does not name the old chain's end (stream %s, seq 5, closed, its hash): %s", old, ls[5])
	}
	rep := verifyFile(t, path)
	if len(rep.Problems) != 0 || rep.Records != 9 || len(rep.Heads) != 2 || rep.Count(EndClosed) != 2 {
		t.Fatalf("untouched log: %+v", rep)
	}
}

func TestVerifyNamesTamperedLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	writeChain(t, path, 4) // start, 4 calls, close: seq 1 to 6
	orig := lines(t, path)
	cases := map[string]struct {
		edit       func([]string) []string
		want, what string
	}{
		"edited": {func(l []string) []string {
			l[1] = strings.Replace(l[1], `"caller_id":"kunora-coding-agent"`, `"caller_id":"someone-else"`, 1)
			return l
		}, "audit.log:2: ", "record edited"},
		"removed": {func(l []string) []string { return append(l[:2:2], l[3:]...) },
			"audit.log:3: ", "seq 3 is missing before this line (seq 4): record removed"},
		"reordered": {func(l []string) []string { l[1], l[2] = l[2], l[1]; return l },
			"audit.log:3: ", "seq 2 comes after seq 3 (line 2): records reordered"},
		"truncated head": {func(l []string) []string { return l[1:] },
			"audit.log:1: ", "starts at seq 2"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			l := c.edit(append([]string(nil), orig...))
			if err := os.WriteFile(path, []byte(strings.Join(l, "")+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			rep := verifyFile(t, path)
			if len(rep.Problems) == 0 || !strings.HasPrefix(rep.Problems[0].String(), c.want) || !strings.Contains(rep.Problems[0].Msg, c.what) {
				t.Fatalf("problems %v, want first at %q saying %q", rep.Problems, c.want, c.what)
			}
		})
	}
}

func TestChainWriterSplicesOnlyJSONObjects(t *testing.T) {
	var out bytes.Buffer
	w := NewChainWriter(&out, "s1", "abc")
	if _, err := w.Write([]byte("{}\nplain text\n{\"a\":1}\n")); err != nil {
		t.Fatal(err)
	}
	l := strings.Split(out.String(), "\n")
	want0 := `{"seq":1,"stream":"s1","prev_hash":"abc"}`
	if l[0] != want0 || l[1] != "plain text" || l[2] != `{"a":1,"seq":2,"stream":"s1","prev_hash":"`+HashLine([]byte(want0))+`"}` {
		t.Fatalf("chained output:\n%s", out.String())
	}
}
