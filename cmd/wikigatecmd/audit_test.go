package wikigatecmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wikigate/wikigate/audit"
)

// chainFile opens path as a gate does and writes n records; closed says
// whether the gate shuts down cleanly (a close record) or dies after its
// last flush (kill -9).
func chainFile(t *testing.T, path string, n int, closed bool) string {
	t.Helper()
	cf, err := audit.OpenChainFile(path, audit.BatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for range n {
		cf.Write([]byte(`{"level":"info","ts":1795851849.5,"msg":"wikigate call"}` + "\n"))
	}
	if closed {
		cf.Close()
	} else {
		cf.Flush() // and never closed: the process is gone
	}
	return cf.Stream()
}

func runVerify(t *testing.T, opt verifyOptions, files ...string) (int, string, error) {
	t.Helper()
	var out bytes.Buffer
	code, err := verifyAudit(&out, files, opt)
	return code, out.String(), err
}

// A gate killed under load and restarted: verify exits 2 and names the
// stream, its last seq and time; --known-unclean accepts it. A gate still
// running (its stream open) passes unless --closed; a clean shutdown
// passes; an edit still exits 1.
func TestAuditVerifyExitStatus(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.log")
	dead := chainFile(t, path, 3, false)
	live := chainFile(t, path, 2, false)

	code, out, err := runVerify(t, verifyOptions{}, path)
	want := "unclean end: stream " + dead + " ended at seq 4 at 2026-"
	if code != verifyUnclean || err != nil || !strings.HasPrefix(out, "unclean: 7 record(s) in 2 stream(s)") || !strings.Contains(out, want) || !strings.Contains(out, "may be lost") {
		t.Fatalf("killed, restarted: exit %d (%v)\n%s\nwant exit 2 and %q", code, err, out, want)
	}
	if !strings.Contains(out, "open: stream "+live+" is at seq 3") {
		t.Errorf("the live stream is not reported open:\n%s", out)
	}
	if code, out, _ := runVerify(t, verifyOptions{known: []string{dead}}, path); code != verifyOK || !strings.HasPrefix(out, "ok: 7 record(s)") || !strings.Contains(out, "known unclean end: stream "+dead) {
		t.Errorf("--known-unclean %s: exit %d\n%s", dead, code, out)
	}
	if code, out, _ := runVerify(t, verifyOptions{known: []string{dead}, closed: true}, path); code != verifyUnclean || !strings.Contains(out, "unclean end (--closed): open: stream "+live) {
		t.Errorf("--closed with the live stream open: exit %d\n%s", code, out)
	}

	clean := filepath.Join(dir, "clean.log")
	chainFile(t, clean, 2, true)
	chainFile(t, clean, 1, true)
	if code, out, _ := runVerify(t, verifyOptions{closed: true}, clean); code != verifyOK || strings.Contains(out, "unclean") || strings.Contains(out, "open:") {
		t.Errorf("two clean shutdowns: exit %d\n%s", code, out)
	}

	raw, _ := os.ReadFile(clean)
	os.WriteFile(clean, bytes.Replace(raw, []byte("wikigate call"), []byte("wikigate cell"), 1), 0o600)
	if code, out, err := runVerify(t, verifyOptions{}, clean); code != verifyBroken || err == nil || !strings.Contains(out, "record edited") {
		t.Errorf("an edited record: exit %d (%v)\n%s", code, err, out)
	}
}

// A file written before start and close records verifies as before, its
// streams reported unchecked (exit 0, also with --closed).
func TestAuditVerifyLegacyFile(t *testing.T) {
	code, out, err := runVerify(t, verifyOptions{closed: true}, "../../audit/testdata/legacy.log")
	if code != verifyOK || err != nil || !strings.HasPrefix(out, "ok: 5 record(s) in 2 stream(s)") || strings.Count(out, "unchecked: stream ") != 2 {
		t.Fatalf("legacy file: exit %d (%v)\n%s", code, err, out)
	}
}
