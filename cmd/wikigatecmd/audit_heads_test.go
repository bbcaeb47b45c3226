package wikigatecmd

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wikigate/wikigate/audit"
)

// anchoredChain writes a closed stream whose head is published at close,
// as the gate's process log writes it, into process.log beside the file.
func anchoredChain(t *testing.T, dir string) (path, processLog string, head audit.Head) {
	t.Helper()
	path = filepath.Join(dir, "audit.log")
	cf, err := audit.OpenChainFile(path, audit.BatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cf.Anchor(time.Hour, func(h audit.Head) { head = h })
	for range 3 {
		cf.Write([]byte(`{"level":"info","ts":1795851849.5,"msg":"wikigate call"}` + "\n"))
	}
	if err := cf.Close(); err != nil {
		t.Fatal(err)
	}
	processLog = filepath.Join(dir, "process.log")
	line := `{"level":"info","ts":1795851850,"logger":"wikigate.audit","msg":"audit chain head","file":"/var/log/wikigate/audit.log","stream":"` +
		head.Stream + `","seq":` + strconv.FormatUint(head.Seq, 10) + `,"sha256":"` + head.Hash + `"}` + "\n"
	if err := os.WriteFile(processLog, []byte(`{"level":"info","msg":"serving"}`+"\n"+line), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, processLog, head
}

// audit verify --head / --heads-from: the untouched file passes; with its
// last line removed it still passes the chain alone, and exits 1 against
// the published head.
func TestAuditVerifyAgainstPublishedHead(t *testing.T) {
	path, processLog, head := anchoredChain(t, t.TempDir())
	flag := head.Stream + ":" + strconv.FormatUint(head.Seq, 10) + ":" + head.Hash
	for _, opt := range []verifyOptions{{heads: []string{flag}}, {headsFrom: processLog}} {
		if code, out, err := runVerify(t, opt, path); code != verifyOK || err != nil || !strings.Contains(out, "anchored: stream "+head.Stream) {
			t.Fatalf("untouched, %+v: exit %d, %v\n%s", opt, code, err, out)
		}
	}
	ls := strings.SplitAfter(strings.TrimSuffix(readFile(t, path), "\n"), "\n")
	if err := os.WriteFile(path, []byte(strings.Join(ls[:len(ls)-1], "")), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, err := runVerify(t, verifyOptions{}, path); code != verifyOK {
		t.Fatalf("the chain alone: exit %d, %v\n%s (the test expects the tail cut to be invisible without a head)", code, err, out)
	}
	for _, opt := range []verifyOptions{{heads: []string{flag}}, {headsFrom: processLog}} {
		code, out, err := runVerify(t, opt, path)
		if code != verifyBroken || err == nil || !strings.Contains(out, "were removed from the end") {
			t.Errorf("tail removed, %+v: exit %d, %v\n%s", opt, code, err, out)
		}
	}
	other := filepath.Join(t.TempDir(), "other.log")
	if err := os.WriteFile(other, []byte(readFile(t, path)), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, err := runVerify(t, verifyOptions{headsFrom: processLog}, other); code != verifyBroken || err == nil || !strings.Contains(err.Error(), "no published audit chain head") {
		t.Errorf("heads for another file: exit %d, %v; want 1, nothing to compare", code, err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}
