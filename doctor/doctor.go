// Package doctor checks that the backends a gate is configured with hold
// what the gate relies on (docs/backends.md, What the backends must hold): the
// Meilisearch index and its settings, the citation metadata on RAGFlow
// documents, and the datasets the policy's catalog names. It reads only;
// `wikigate doctor` is its command.
package doctor

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Config is what to check and with which credentials.
type Config struct {
	Meili   MeiliTarget
	RAGFlow *RAGFlowTarget // nil: the gate has no ragflow block
	Catalog Catalog
	// DefaultScope is the policy data's humans.default_scope, checked
	// against the catalog (zero: not checked).
	DefaultScope DefaultScope
	// Sample is how many documents per index or dataset are read to check
	// their fields. Default 20.
	Sample int
	// HTTP is the client for every call. Default: a 10s timeout.
	HTTP *http.Client
}

// Severity orders findings; only Fail makes the run fail.
type Severity int

const (
	OK Severity = iota
	Warn
	Fail
)

func (s Severity) String() string {
	return [...]string{"ok", "warn", "FAIL"}[s]
}

// Finding is one check's outcome, said for an operator.
type Finding struct {
	Backend  string // "meilisearch", "ragflow" or "catalog"
	Severity Severity
	Message  string
}

// Report is every finding of a run, in the order checked.
type Report struct{ Findings []Finding }

// Failed reports whether any finding is a failure.
func (r *Report) Failed() bool {
	for _, f := range r.Findings {
		if f.Severity == Fail {
			return true
		}
	}
	return false
}

// Print writes one line per finding and a summary line.
func (r *Report) Print(w io.Writer) {
	fails, warns := 0, 0
	for _, f := range r.Findings {
		fmt.Fprintf(w, "%-4s  %-11s  %s\n", f.Severity, f.Backend, f.Message)
		switch f.Severity {
		case Fail:
			fails++
		case Warn:
			warns++
		}
	}
	fmt.Fprintf(w, "%d problem(s), %d warning(s)\n", fails, warns)
}

func (r *Report) add(backend string, s Severity, format string, args ...any) {
	r.Findings = append(r.Findings, Finding{Backend: backend, Severity: s, Message: fmt.Sprintf(format, args...)})
}

// Run checks both backends and the catalog against them.
func Run(ctx context.Context, cfg Config) *Report {
	if cfg.Sample <= 0 {
		cfg.Sample = 20
	}
	if cfg.HTTP == nil {
		cfg.HTTP = &http.Client{Timeout: 10 * time.Second}
	}
	r := &Report{}
	checkCatalogShape(r, cfg)
	checkDefaultScope(r, cfg)
	checkMeili(ctx, r, cfg)
	if cfg.RAGFlow == nil {
		r.add("ragflow", Warn, "no ragflow block: answers are not configured, datasets not checked")
	} else {
		checkRAGFlow(ctx, r, cfg)
	}
	return r
}
