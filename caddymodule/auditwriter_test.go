package caddymodule

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	if len(lines) != 3 || !strings.Contains(lines[2], `"seq":3,`) {
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
