package audit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// die is kill -9 for a chain file: what was flushed stays, nothing is
// closed, no close record is written.
func (c *ChainFile) die(t *testing.T) {
	t.Helper()
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	c.once.Do(func() {}) // a dead process never closes
	c.batch.Close()
	c.f.Close()
	if c.sync {
		syncFiles.Add(-1)
	}
}

// openAndWrite opens path as a restarted gate does and writes n records.
func openAndWrite(t *testing.T, path string, n int, opt BatchOptions) *ChainFile {
	t.Helper()
	cf, err := OpenChainFile(path, opt)
	if err != nil {
		t.Fatal(err)
	}
	enc := zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig())
	l := NewLogger(zap.New(zapcore.NewCore(enc, zapcore.AddSync(cf), zap.InfoLevel)), false)
	for range n {
		l.Write(record())
	}
	return cf
}

// A gate killed without closing, then restarted: the restart's start
// record names the dead stream's last seq and says it was not closed, and
// verify reports an unclean end at that seq and time, while the chain
// itself has no problem. Before the restart the same stream is open.
func TestVerifyReportsAnUncleanEnd(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	dead := openAndWrite(t, path, 4, BatchOptions{})
	dead.die(t)

	rep := verifyFile(t, path)
	if len(rep.Problems) != 0 || len(rep.Ends) != 1 || rep.Ends[0].State != EndOpen || rep.Ends[0].Seq != 5 {
		t.Fatalf("before the restart: problems %v, ends %+v; want one open stream at seq 5", rep.Problems, rep.Ends)
	}

	openAndWrite(t, path, 2, BatchOptions{}).Close()
	ls := lines(t, path)
	if !strings.Contains(ls[5], `"audit_event":"start"`) || !strings.Contains(ls[5], `"prev_stream":"`+dead.Stream()+`","prev_seq":5,"prev_closed":false`) {
		t.Fatalf("the restart's start record does not name the dead stream's end: %s", ls[5])
	}
	rep = verifyFile(t, path)
	if len(rep.Problems) != 0 || len(rep.Ends) != 2 {
		t.Fatalf("after the restart: problems %v, ends %+v", rep.Problems, rep.Ends)
	}
	end := rep.Ends[0]
	if end.State != EndUnclean || end.Stream != dead.Stream() || end.Seq != 5 || end.Line != 5 || end.NextLine != 6 || !strings.HasPrefix(end.Time, "20") {
		t.Errorf("dead stream's end: %+v; want unclean at seq 5, line 5, with its time, found by line 6", end)
	}
	if s := end.String(); !strings.Contains(s, "unclean end: stream "+dead.Stream()+" ended at seq 5 at "+end.Time) || !strings.Contains(s, "may be lost") {
		t.Errorf("the report line: %s", s)
	}
	if rep.Ends[1].State != EndClosed || rep.Count(EndUnclean) != 1 {
		t.Errorf("the restarted stream, closed cleanly: %+v", rep.Ends[1])
	}
}

// A gate that dies in the middle of a write leaves a line cut short; the
// restart says so in its start record, and verify reports the cut with the
// unclean end instead of calling the line an edit.
func TestVerifyTellsACutLineFromAnEdit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	openAndWrite(t, path, 2, BatchOptions{}).die(t)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"level":"info","ts":1795851849.9,"msg":"wikigate call","request_id":"cut-sh`)
	f.Close()
	openAndWrite(t, path, 1, BatchOptions{}).Close()

	if ls := lines(t, path); !strings.Contains(ls[4], `"prev_cut":true`) || !strings.Contains(ls[4], `"prev_seq":3`) {
		t.Fatalf("start record after a cut line: %s", ls[4])
	}
	rep := verifyFile(t, path)
	if len(rep.Problems) != 0 || rep.Other != 1 || rep.Ends[0].State != EndUnclean || !rep.Ends[0].Cut {
		t.Fatalf("problems %v, other %d, ends %+v; want no problem, the cut line, an unclean end that says so", rep.Problems, rep.Other, rep.Ends)
	}

	// The same cut line without the start record that explains it is
	// what an edit looks like.
	ls := lines(t, path)
	os.WriteFile(path, []byte(strings.Join(ls[:4], "")+"\n"), 0o600)
	if rep := verifyFile(t, path); len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].Msg, "not a JSON record") {
		t.Fatalf("an unexplained cut line: problems %v", rep.Problems)
	}
}

// A file written before start and close records still verifies: its
// streams are reported unchecked (how they ended was not recorded), never
// unclean, and a gate of this version appending to it names its end.
func TestLegacyFileStillVerifies(t *testing.T) {
	legacy, err := os.ReadFile("testdata/legacy.log")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "audit.log")
	os.WriteFile(path, legacy, 0o600)
	rep := verifyFile(t, path)
	if len(rep.Problems) != 0 || rep.Records != 5 || len(rep.Ends) != 2 || rep.Count(EndUnchecked) != 2 {
		t.Fatalf("legacy file: %+v; want 5 records, two unchecked ends, no problem", rep)
	}
	if s := rep.Ends[1].String(); !strings.HasPrefix(s, "unchecked: stream 18183c4f3902a4c1 ends at seq 2 at 2026-") {
		t.Errorf("report line: %s", s)
	}

	openAndWrite(t, path, 1, BatchOptions{}).Close()
	if ls := lines(t, path); !strings.Contains(ls[5], `"prev_stream":"18183c4f3902a4c1","prev_seq":2,"prev_closed":false`) {
		t.Fatalf("start record after a legacy stream: %s", ls[5])
	}
	rep = verifyFile(t, path)
	if len(rep.Problems) != 0 || rep.Count(EndUnchecked) != 2 || rep.Count(EndClosed) != 1 || rep.Count(EndUnclean) != 0 {
		t.Fatalf("legacy file with a new stream: problems %v, ends %+v", rep.Problems, rep.Ends)
	}
}

// A record appended after a stream's close record is not the writer's.
func TestVerifyRefusesARecordAfterTheClose(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	openAndWrite(t, path, 1, BatchOptions{}).Close()
	var out strings.Builder
	ls := lines(t, path)
	out.WriteString(strings.Join(ls, "") + "\n")
	stream := strings.SplitN(ls[2], `"stream":"`, 2)[1][:16]
	w := NewChainWriter(&out, stream, HashLine([]byte(ls[2])))
	w.seq = 3
	w.Write([]byte(`{"msg":"wikigate call"}` + "\n"))
	os.WriteFile(path, []byte(out.String()), 0o600)
	if rep := verifyFile(t, path); len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].Msg, "after its close record") {
		t.Fatalf("problems %v", rep.Problems)
	}
}
