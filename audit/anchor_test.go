package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// anchoredFile writes a closed stream of n records with its head published
// at Close, and returns the file and that head.
func anchoredFile(t *testing.T, n int) (string, Head) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "audit.log")
	cf, err := OpenChainFile(path, BatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var published []Head
	cf.Anchor(time.Hour, func(h Head) { published = append(published, h) })
	writeRecords(t, cf, n)
	if err := cf.Close(); err != nil {
		t.Fatal(err)
	}
	if len(published) != 1 || published[0].Seq != uint64(n)+2 { // start, n records, close
		t.Fatalf("published at close: %+v, want one head at seq %d", published, n+2)
	}
	return path, published[0]
}

func writeRecords(t *testing.T, cf *ChainFile, n int) {
	t.Helper()
	enc := zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig())
	l := NewLogger(zap.New(zapcore.NewCore(enc, zapcore.AddSync(cf), zap.InfoLevel)), false)
	for range n {
		l.Write(record())
	}
}

func verifyAnchored(t *testing.T, path string, heads ...Head) Report {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := VerifyAnchored(heads, Input{Name: "audit.log", R: f})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func rewrite(t *testing.T, path string, ls []string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Join(ls, "")), 0o600); err != nil {
		t.Fatal(err)
	}
}

// The three tail attacks an attacker holding the file can make: each
// leaves a chain Verify accepts, and each is caught against the head the
// gate published at shutdown.
func TestPublishedHeadCatchesTailAttacks(t *testing.T) {
	path, head := anchoredFile(t, 5)
	if rep := verifyAnchored(t, path, head); len(rep.Problems) != 0 || len(rep.Anchored) != 1 || rep.Anchored[0].Later != 0 {
		t.Fatalf("the untouched file against its head: problems %v, anchored %+v", rep.Problems, rep.Anchored)
	}
	orig := lines(t, path)
	attacks := map[string]struct {
		edit func([]string) []string
		want string
	}{
		"removed tail": {
			edit: func(ls []string) []string { return ls[:len(ls)-2] }, // the last record and the close record
			want: "records 6 to 7 were removed from the end",
		},
		"edited last line": {
			edit: func(ls []string) []string {
				ls[len(ls)-1] = strings.Replace(ls[len(ls)-1], "audit stream closed", "audit stream clozed", 1)
				return ls
			},
			want: "is not the record published as its head",
		},
		"re-hashed file": {
			edit: func(ls []string) []string {
				ls[2] = strings.Replace(ls[2], "kunora-coding-agent", "someone-else-agent", 1)
				return rehash(t, ls)
			},
			want: "is not the record published as its head",
		},
	}
	for name, a := range attacks {
		t.Run(name, func(t *testing.T) {
			rewrite(t, path, a.edit(append([]string(nil), orig...)))
			if rep := verifyFile(t, path); len(rep.Problems) != 0 {
				t.Fatalf("the chain alone already shows it (%v): not a tail attack", rep.Problems)
			}
			rep := verifyAnchored(t, path, head)
			if len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].Msg, a.want) || len(rep.Anchored) != 0 {
				t.Fatalf("against the published head: problems %v, anchored %+v; want one naming %q", rep.Problems, rep.Anchored, a.want)
			}
		})
	}
}

// rehash recomputes every prev_hash after an edit, as an attacker who
// knows the format would.
func rehash(t *testing.T, ls []string) []string {
	t.Helper()
	prev := regexp.MustCompile(`"prev_hash":"[0-9a-f]*"`)
	for i := 1; i < len(ls); i++ {
		sum := sha256.Sum256([]byte(strings.TrimRight(ls[i-1], "\n")))
		ls[i] = prev.ReplaceAllString(ls[i], `"prev_hash":"`+hex.EncodeToString(sum[:])+`"`)
	}
	return ls
}

// A head published at the interval names a record already in the file,
// and records written after it are reported as later, not as a problem.
func TestHeadIsPublishedAtTheInterval(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	cf, err := OpenChainFile(path, BatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var published []Head
	cf.Anchor(10*time.Millisecond, func(h Head) { mu.Lock(); published = append(published, h); mu.Unlock() })
	writeRecords(t, cf, 3)
	deadline := time.Now().Add(10 * time.Second)
	var first Head
	for time.Now().Before(deadline) {
		mu.Lock()
		if len(published) > 0 {
			first = published[0]
		}
		mu.Unlock()
		if first.Seq == 4 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if first.Seq != 4 {
		t.Fatalf("no head published at the interval for the 4 records written (got %+v)", first)
	}
	writeRecords(t, cf, 2)
	if err := cf.Close(); err != nil {
		t.Fatal(err)
	}
	rep := verifyAnchored(t, path, first)
	if len(rep.Problems) != 0 || len(rep.Anchored) != 1 || rep.Anchored[0].Later != 3 {
		t.Fatalf("against the interval's head: problems %v, anchored %+v; want 3 later records", rep.Problems, rep.Anchored)
	}
	mu.Lock()
	defer mu.Unlock()
	if last := published[len(published)-1]; last.Seq != 7 {
		t.Errorf("the head published at close is seq %d, want 7 (the close record)", last.Seq)
	}
}

func TestParseAndReadHeads(t *testing.T) {
	hash := strings.Repeat("ab", 32)
	h, err := ParseHead("0011aabb:12:" + hash)
	if err != nil || h.Stream != "0011aabb" || h.Seq != 12 || h.Hash != hash {
		t.Fatalf("ParseHead: %+v, %v", h, err)
	}
	for _, bad := range []string{"x:1", "x:0:" + hash, "x:1:nothex"} {
		if _, err := ParseHead(bad); err == nil {
			t.Errorf("ParseHead(%q) accepted", bad)
		}
	}
	log := `{"level":"info","msg":"audit chain head","file":"/a.log","stream":"s1","seq":3,"sha256":"` + hash + `"}
2026/11/28 10:00:00.000	INFO	audit chain head	{"file": "/a.log", "stream": "s1", "seq": 9, "sha256": "` + hash + `"}
{"level":"info","msg":"other","stream":"s2"}
`
	heads, err := ReadHeads(strings.NewReader(log))
	if err != nil || len(heads) != 1 || heads[0].Seq != 9 || heads[0].File != "/a.log" {
		t.Fatalf("ReadHeads: %+v, %v; want s1's latest head, seq 9", heads, err)
	}
}
