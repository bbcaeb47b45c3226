package caddymodule

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/wikigate/wikigate/audit"
)

// At shutdown the audit file's head (its close record) is published in the
// process log, the metric and to anchor_url, and the file verifies against
// it; with its last line cut, it does not.
func TestAuditFileHeadIsPublishedAtClose(t *testing.T) {
	posted := make(chan audit.PublishedHead, 1)
	anchor := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var h audit.PublishedHead
		raw, _ := io.ReadAll(r.Body)
		if json.Unmarshal(raw, &h) == nil {
			posted <- h
		}
	}))
	defer anchor.Close()
	core, logs := observer.New(zap.InfoLevel)
	path := filepath.Join(t.TempDir(), "audit.log")
	aw := &AuditFileWriter{Filename: path, AnchorInterval: -1, AnchorURL: anchor.URL, logger: zap.New(core)}
	w, err := aw.OpenWriter()
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		w.Write([]byte(`{"msg":"wikigate call"}` + "\n"))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	entries := logs.FilterMessage(audit.HeadMessage).All()
	if len(entries) != 1 {
		t.Fatalf("process log: %d head lines, want 1 at close", len(entries))
	}
	f := entries[0].ContextMap()
	head := audit.Head{Stream: f["stream"].(string), Seq: f["seq"].(uint64), Hash: f["sha256"].(string)}
	if head.Seq != 5 || f["file"] != aw.String() {
		t.Fatalf("published head %+v for %v, want seq 5 (start, 3 records, close) of %s", head, f["file"], aw.String())
	}
	if got := testutil.ToFloat64(auditChainHead().WithLabelValues(aw.String(), head.Stream, head.Hash)); got != 5 {
		t.Errorf("caddy_wikigate_audit_chain_head = %v, want 5", got)
	}
	if p := <-posted; p.Stream != head.Stream || p.Seq != 5 || p.SHA256 != head.Hash {
		t.Errorf("anchor_url got %+v", p)
	}
	if rep := verifyWith(t, path, head); len(rep.Problems) != 0 || len(rep.Anchored) != 1 {
		t.Fatalf("the file against its head: %v", rep.Problems)
	}
	raw, _ := os.ReadFile(path)
	cut := strings.TrimSuffix(string(raw), "\n")
	os.WriteFile(path, []byte(cut[:strings.LastIndexByte(cut, '\n')+1]), 0o600)
	if rep := verifyWith(t, path, head); len(rep.Problems) != 1 {
		t.Fatalf("the file without its last line against its head: %v", rep.Problems)
	}
}

func verifyWith(t *testing.T, path string, h audit.Head) audit.Report {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := audit.VerifyAnchored([]audit.Head{h}, audit.Input{Name: path, R: f})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestAuditFileAnchorOptions(t *testing.T) {
	var w AuditFileWriter
	d := caddyfile.NewTestDispenser("wikigate_audit_file /x.log {\n anchor_interval 30s\n anchor_url https://anchor.example/heads\n}")
	if err := w.UnmarshalCaddyfile(d); err != nil || time.Duration(w.AnchorInterval) != 30*time.Second || w.AnchorURL != "https://anchor.example/heads" {
		t.Fatalf("%v: %+v", err, w)
	}
	for _, bad := range []string{"anchor_interval 0s", "anchor_interval soon", "anchor_url ftp://x"} {
		var w AuditFileWriter
		if err := w.UnmarshalCaddyfile(caddyfile.NewTestDispenser("wikigate_audit_file /x.log {\n " + bad + "\n}")); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	w = AuditFileWriter{}
	if err := w.UnmarshalCaddyfile(caddyfile.NewTestDispenser("wikigate_audit_file /x.log {\n anchor_interval off\n}")); err != nil || w.AnchorInterval >= 0 {
		t.Errorf("off: %v, %v", err, w.AnchorInterval)
	}
}
