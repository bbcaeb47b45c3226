package audit

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/wikigate/wikigate/protocol"
)

// searchRecord is the record of bench B's call: an agent's search, allowed,
// one Meilisearch call.
func searchRecord() *Record {
	r := New("0f3c2a9e-4b1d-4c8e-9a7f-2d6b5e1c8a40", "/agent/tools/search", time.Now())
	r.CallerType, r.CallerID, r.Credential, r.Tool = "agent", "kunora-coding-agent", "jwt", "search"
	r.SetQuestion("how do I configure agent memory?")
	r.EffectiveScope = &protocol.Scope{Projects: []string{"kunora-kgent"}, Paths: []string{"publish/"}, Version: "main"}
	r.Decision = &Decision{Allow: true, Revision: "3f9a1c2b7d"}
	r.AddBackend("meilisearch", 200, 1800*time.Microsecond, nil)
	r.Result, r.Status, r.Citations = "ok", 200, 5
	return r
}

// benchLogger is the audit logger over zap's JSON encoder (Caddy's `format
// json`) writing to w.
func benchLogger(w io.Writer) *Logger {
	enc := zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig())
	return NewLogger(zap.New(zapcore.NewCore(enc, zapcore.AddSync(w), zap.InfoLevel)), false)
}

// benchWrite writes records from parallel goroutines, then calls done
// (which writes what is pending) inside the measurement. Besides ns/op
// (wall time, which the shared machine's load moves a lot) it reports
// cpu-ns/op: the process's CPU time per record, the flushing goroutine's
// included, which is what the gate's CPU budget counts.
func benchWrite(b *testing.B, w io.Writer, done func()) {
	l := benchLogger(w)
	b.ReportAllocs()
	cpu0 := processCPU()
	b.RunParallel(func(pb *testing.PB) {
		r := searchRecord()
		for pb.Next() {
			l.Write(r)
		}
	})
	if done != nil {
		done()
	}
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkAuditEncode is the encoding alone.
func BenchmarkAuditEncode(b *testing.B) { benchWrite(b, io.Discard, nil) }

// BenchmarkAuditPlainFile is Caddy's `output file`: one write per record.
func BenchmarkAuditPlainFile(b *testing.B) {
	f, err := os.OpenFile(filepath.Join(b.TempDir(), "audit.log"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	benchWrite(b, f, nil)
}

// BenchmarkAuditChainFile is `output wikigate_audit_file`.
func BenchmarkAuditChainFile(b *testing.B) {
	cf, err := OpenChainFile(filepath.Join(b.TempDir(), "audit.log"), BatchOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer cf.Close()
	benchWrite(b, cf, func() { _ = cf.Flush() })
}

// BenchmarkAuditChainFileSync is `output wikigate_audit_file <path> {
// sync }`: each record returns only once its batch was written and
// fsynced (group commit across the parallel writers). ns/op over the
// parallel writers is the file's throughput per record; a caller waits
// about one fsync (see bench/README.md, Audit sync mode).
func BenchmarkAuditChainFileSync(b *testing.B) {
	cf, err := OpenChainFile(filepath.Join(b.TempDir(), "audit.log"), BatchOptions{Sync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer cf.Close()
	b.SetParallelism(16) // callers waiting on one fsync share the next
	benchWrite(b, cf, nil)
}
