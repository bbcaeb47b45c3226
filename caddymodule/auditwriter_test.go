package caddymodule

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// What Caddy hands the audit logger: written lines reach the file, chained,
// once the writer is closed (config unload, shutdown) at the latest.
func TestAuditFileWriterCloseWritesWhatIsPending(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	w, err := (&AuditFileWriter{Filename: path}).OpenWriter()
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := w.Write([]byte(`{"msg":"wikigate call"}` + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	// start record, the three lines, close record
	if len(lines) != 5 || !strings.Contains(lines[3], `"seq":4,`) || !strings.Contains(lines[4], `"audit_event":"close"`) {
		t.Fatalf("file after Close: %q", raw)
	}
	if _, err := w.Write([]byte("{}\n")); err == nil {
		t.Error("a write after Close succeeded")
	}
}

// Lost records are counted every time and logged at most once a second,
// with how many were lost since the last log line.
func TestAuditLossIsCountedAndLogged(t *testing.T) {
	core, logs := observer.New(zap.ErrorLevel)
	report := lossReporter(zap.New(core), "/var/log/audit.log")
	before := testutil.ToFloat64(auditLostRecords())
	report(2, errors.New("disk full"))
	report(3, errors.New("disk full"))
	if got := testutil.ToFloat64(auditLostRecords()) - before; got != 5 {
		t.Errorf("counter rose by %v, want 5", got)
	}
	entries := logs.All()
	if len(entries) != 1 || entries[0].Message != "audit records lost" || entries[0].ContextMap()["records"] != int64(2) {
		t.Fatalf("log entries %+v, want one saying 2 records lost", entries)
	}
}

// `sync` in the writer's block turns the durable mode on, and keys the
// writer apart from the same file without it.
func TestAuditFileWriterSyncOption(t *testing.T) {
	for cfg, want := range map[string]bool{
		"wikigate_audit_file /var/log/a.log":                 false,
		"wikigate_audit_file /var/log/a.log {\n\tsync\n}":    true,
		"wikigate_audit_file /var/log/a.log {\n\tsync on\n}": false,
		"wikigate_audit_file /var/log/a.log {\n\tfsync\n}":   false,
	} {
		var w AuditFileWriter
		err := w.UnmarshalCaddyfile(caddyfile.NewTestDispenser(cfg))
		if strings.Contains(cfg, " on") || strings.Contains(cfg, "fsync") {
			if err == nil {
				t.Errorf("%q: accepted", cfg)
			}
			continue
		}
		if err != nil || w.Sync != want || w.Filename != "/var/log/a.log" {
			t.Errorf("%q: %+v, %v", cfg, w, err)
		}
	}
	plain, durable := AuditFileWriter{Filename: "/a.log"}, AuditFileWriter{Filename: "/a.log", Sync: true}
	if plain.WriterKey() == durable.WriterKey() {
		t.Error("one writer key for the file with and without sync")
	}
}

// The writer Caddy opens starts its stream with a start record and ends
// it with a close record when Caddy closes it.
func TestAuditFileWriterWritesStartAndClose(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	w, err := (&AuditFileWriter{Filename: path, Sync: true}).OpenWriter()
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte(`{"msg":"wikigate call"}` + "\n"))
	raw, _ := os.ReadFile(path)
	if !strings.Contains(string(raw), `"msg":"wikigate call"`) {
		t.Fatalf("a durable write returned before its record was in the file: %q", raw)
	}
	w.Close()
	raw, _ = os.ReadFile(path)
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], `"audit_event":"start","sync":true`) || !strings.Contains(lines[2], `"audit_event":"close"`) {
		t.Fatalf("file: %q", raw)
	}
}

// At process exit (Caddy leaves log writers open then) every audit file
// still open is closed: its pending records and its close record land.
func TestAuditFilesAreClosedAtExit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	w, err := (&AuditFileWriter{Filename: path}).OpenWriter()
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte(`{"msg":"wikigate call"}` + "\n"))
	closeAuditFiles()
	raw, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	if len(lines) != 3 || !strings.Contains(lines[1], `"msg":"wikigate call"`) || !strings.Contains(lines[2], `"audit_event":"close"`) {
		t.Fatalf("file after the exit: %q", raw)
	}
	if err := w.Close(); err != nil { // Caddy's own close later, if any, is harmless
		t.Fatal(err)
	}
}
