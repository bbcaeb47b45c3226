package caddymodule

import (
	"io"
	"path/filepath"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/wikigate/wikigate/audit"
)

func init() { caddy.RegisterModule(new(AuditFileWriter)) }

// AuditFileWriter is the log output `wikigate_audit_file <path>`: Caddy's
// file output plus the audit hash chain (audit.ChainWriter), so that
// `wikigate audit verify <path>` finds a removed, reordered or edited line.
// Caddy keeps one open writer per path across config reloads, so a reload
// continues the chain; a process start opens a new stream that names the
// file's last hash.
type AuditFileWriter struct {
	Filename string `json:"filename,omitempty"`
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

// WriterKey makes Caddy share one open chain per file.
func (w *AuditFileWriter) WriterKey() string { return "wikigate_audit_file:" + w.String() }

// OpenWriter opens the file and starts a stream after its last line.
func (w *AuditFileWriter) OpenWriter() (io.WriteCloser, error) {
	return audit.OpenChainFile(w.Filename)
}

// UnmarshalCaddyfile reads `output wikigate_audit_file <path>`.
func (w *AuditFileWriter) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next()
	if !d.AllArgs(&w.Filename) {
		return d.ArgErr()
	}
	if d.NextBlock(0) {
		return d.Errf("wikigate_audit_file takes no options")
	}
	return nil
}

var (
	_ caddy.WriterOpener    = (*AuditFileWriter)(nil)
	_ caddyfile.Unmarshaler = (*AuditFileWriter)(nil)
)
