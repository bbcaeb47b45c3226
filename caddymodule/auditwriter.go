package caddymodule

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/wikigate/wikigate/audit"
)

func init() { caddy.RegisterModule(new(AuditFileWriter)) }

// AuditFileWriter is the log output `wikigate_audit_file <path>`: an
// append-only file with the audit hash chain (audit.ChainWriter), so that
// `wikigate audit verify <path>` finds a removed, reordered or edited line,
// written in batches off the request (audit.BatchWriter: one write call per
// few milliseconds instead of one per call; Caddy's `output file` makes a
// write call per record). Caddy keeps one open writer per path across
// config reloads, so a reload continues the chain, and closes it (writing
// what is pending) when the last config using it is unloaded, at shutdown
// too; a process start opens a new stream that names the file's last hash.
// A record the disk could not take is counted in
// caddy_wikigate_audit_lost_records_total and logged, never dropped
// silently. Each stream starts with a start record and a clean close ends
// it with a close record, so verify shows a gate that died (docs/security.md,
// Audit).
//
// With `sync` the file is durable: each batch is written and fsynced
// before the calls whose records it holds are answered (holdForAudit), so
// an answered call's record survives kill -9 or a crash.
//
// The chain's head (stream, seq, sha256) is published outside the file
// every anchor_interval when it moved and at shutdown (headPublisher: the
// process log, a metric, anchor_url), so `wikigate audit verify --head`
// catches a removed tail, an edited last line or a re-hashed file.
type AuditFileWriter struct {
	Filename string `json:"filename,omitempty"`
	Sync     bool   `json:"sync,omitempty"`
	// AnchorInterval: 0 is DefaultAnchorInterval; negative publishes the
	// head at shutdown only.
	AnchorInterval caddy.Duration `json:"anchor_interval,omitempty"`
	AnchorURL      string         `json:"anchor_url,omitempty"`

	logger *zap.Logger
}

// CaddyModule returns the Caddy module information.
func (*AuditFileWriter) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "caddy.logging.writers.wikigate_audit_file",
		New: func() caddy.Module { return new(AuditFileWriter) },
	}
}

func (w *AuditFileWriter) String() string {
	if abs, err := filepath.Abs(w.Filename); err == nil {
		return abs
	}
	return w.Filename
}

// WriterKey makes Caddy share one open chain per file and mode: a reload
// that turns sync on or off opens a new stream.
func (w *AuditFileWriter) WriterKey() string {
	if w.Sync {
		return "wikigate_audit_file:sync:" + w.String()
	}
	return "wikigate_audit_file:" + w.String()
}

// Provision takes the logger that reports lost records and registers
// their counter.
func (w *AuditFileWriter) Provision(ctx caddy.Context) error {
	w.logger = ctx.Logger()
	if reg := ctx.GetMetricsRegistry(); reg != nil {
		for _, c := range []prometheus.Collector{auditLostRecords(), auditChainHead()} {
			if err := reg.Register(c); err != nil {
				var already prometheus.AlreadyRegisteredError
				if !errors.As(err, &already) {
					return err
				}
			}
		}
	}
	return nil
}

// OpenWriter opens the file and starts a stream after its last line.
func (w *AuditFileWriter) OpenWriter() (io.WriteCloser, error) {
	logger := w.logger
	if logger == nil {
		logger = zap.NewNop()
	}
	cf, err := audit.OpenChainFile(w.Filename, audit.BatchOptions{OnLoss: lossReporter(logger, w.String()), Sync: w.Sync})
	if err != nil {
		return nil, err
	}
	interval := time.Duration(w.AnchorInterval)
	if interval == 0 {
		interval = DefaultAnchorInterval
	}
	cf.Anchor(interval, headPublisher(logger, w.String(), w.AnchorURL))
	closeAtExit.Do(func() { caddy.OnExit(func(context.Context) { closeAuditFiles() }) })
	return openAuditFiles.track(cf), nil
}

// Caddy closes a log writer when the last config using it is unloaded,
// but not when the process exits (a SIGINT or SIGTERM stops the apps and
// exits with the writers still open): the files still open then are
// closed at exit, after the servers stopped, so a clean shutdown writes
// what is pending and ends each stream with its close record.
var (
	closeAtExit    sync.Once
	openAuditFiles = &auditFiles{open: map[*trackedAuditFile]struct{}{}}
)

type auditFiles struct {
	mu   sync.Mutex
	open map[*trackedAuditFile]struct{}
}

// trackedAuditFile is an open chain file known to closeAuditFiles.
type trackedAuditFile struct {
	*audit.ChainFile
	files *auditFiles
}

func (a *auditFiles) track(cf *audit.ChainFile) *trackedAuditFile {
	t := &trackedAuditFile{ChainFile: cf, files: a}
	a.mu.Lock()
	a.open[t] = struct{}{}
	a.mu.Unlock()
	return t
}

// Close closes the file (Caddy's unload, or the exit).
func (t *trackedAuditFile) Close() error {
	t.files.mu.Lock()
	delete(t.files.open, t)
	t.files.mu.Unlock()
	return t.ChainFile.Close()
}

// closeAuditFiles closes every audit file still open.
func closeAuditFiles() {
	openAuditFiles.mu.Lock()
	files := make([]*trackedAuditFile, 0, len(openAuditFiles.open))
	for t := range openAuditFiles.open {
		files = append(files, t)
	}
	openAuditFiles.mu.Unlock()
	for _, t := range files {
		_ = t.Close()
	}
}

var (
	auditLostOnce    sync.Once
	auditLostCounter prometheus.Counter
)

// auditLostRecords is created once per process and registered into each
// config's registry, so a reload keeps counting.
func auditLostRecords() prometheus.Counter {
	auditLostOnce.Do(func() {
		auditLostCounter = prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: "caddy", Subsystem: "wikigate", Name: "audit_lost_records_total",
			Help: "Audit records that never reached the wikigate_audit_file (disk not keeping up, write failed).",
		})
	})
	return auditLostCounter
}

// lossReporter counts lost records and logs them, at most once a second
// (a stuck disk loses many records a second).
func lossReporter(logger *zap.Logger, file string) func(int, error) {
	var lastLog atomic.Int64
	var unlogged atomic.Int64
	counter := auditLostRecords()
	return func(n int, err error) {
		counter.Add(float64(n))
		total := unlogged.Add(int64(n))
		now := time.Now().UnixNano()
		last := lastLog.Load()
		if now-last < int64(time.Second) || !lastLog.CompareAndSwap(last, now) {
			return
		}
		unlogged.Add(-total)
		logger.Error("audit records lost", zap.String("file", file), zap.Int64("records", total), zap.Error(err))
	}
}

// UnmarshalCaddyfile reads `output wikigate_audit_file <path> [{ sync;
// anchor_interval <duration>|off; anchor_url <url> }]`.
func (w *AuditFileWriter) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next()
	if !d.AllArgs(&w.Filename) {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		switch d.Val() {
		case "sync":
			if d.NextArg() {
				return d.Errf("sync takes no value")
			}
			w.Sync = true
		case "anchor_interval":
			if err := w.parseAnchorInterval(d); err != nil {
				return err
			}
		case "anchor_url":
			if !d.NextArg() || !strings.HasPrefix(d.Val(), "http") {
				return d.Errf("anchor_url takes an http(s) URL")
			}
			w.AnchorURL = d.Val()
		default:
			return d.Errf("wikigate_audit_file: unknown option %q (it takes sync, anchor_interval, anchor_url)", d.Val())
		}
	}
	return nil
}

// parseAnchorInterval reads anchor_interval's value: a duration, or off
// (the head is published at shutdown only).
func (w *AuditFileWriter) parseAnchorInterval(d *caddyfile.Dispenser) error {
	if !d.NextArg() {
		return d.ArgErr()
	}
	if d.Val() == "off" {
		w.AnchorInterval = -1
		return nil
	}
	dur, err := caddy.ParseDuration(d.Val())
	if err != nil || dur <= 0 {
		return d.Errf("anchor_interval %q: want a positive duration (30s, 5m) or off", d.Val())
	}
	w.AnchorInterval = caddy.Duration(dur)
	return nil
}

var (
	_ caddy.Provisioner     = (*AuditFileWriter)(nil)
	_ caddy.WriterOpener    = (*AuditFileWriter)(nil)
	_ caddyfile.Unmarshaler = (*AuditFileWriter)(nil)
)
