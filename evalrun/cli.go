package evalrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"
)

// Exit statuses of `wikigate eval`.
const (
	ExitOK        = 0
	ExitThreshold = 1 // a threshold was missed
	ExitUsage     = 2 // bad flags or set file, or the gate failed (a transport error, a 5xx, a refused credential)
)

// Options are the command's flags.
type Options struct {
	SetFile     string
	GateURL     string
	JSON        bool
	Concurrency int
	Timeout     time.Duration
	Thresholds  Thresholds
	Progress    io.Writer // nil: no progress line
	Getenv      func(string) string
	// FromFeedback, when set, names a feedback store (a bbolt file or a
	// postgres:// URL): Main writes candidate cases from its open records
	// instead of running a set.
	FromFeedback string
	Notes        io.Writer // where --from-feedback says how many cases it wrote; nil: nowhere
}

// Main runs `wikigate eval` and returns its exit status, with the error
// to show for a status other than 0. The report is written to out even
// when a threshold is missed or a case hit a gate error.
func Main(ctx context.Context, o Options, out io.Writer) (int, error) {
	if o.FromFeedback != "" {
		if o.SetFile != "" {
			return ExitUsage, errors.New("--set and --from-feedback are two commands: give one")
		}
		return fromFeedback(ctx, o, out)
	}
	if o.SetFile == "" {
		return ExitUsage, errors.New("--set FILE (or --from-feedback STORE) is required")
	}
	if o.GateURL == "" {
		return ExitUsage, errors.New("--gate URL is required")
	}
	if o.Timeout <= 0 || o.Concurrency < 1 {
		return ExitUsage, errors.New("--timeout and --concurrency must be positive")
	}
	set, err := LoadSet(o.SetFile)
	if err != nil {
		return ExitUsage, err
	}
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	g := &Gate{URL: o.GateURL, Timeout: o.Timeout, Client: &http.Client{}, Getenv: getenv}
	if err := g.checkCredentials(set); err != nil {
		return ExitUsage, err
	}
	r := Run(ctx, g, set, o.Concurrency, o.Progress)
	if err := write(out, r, o.JSON); err != nil {
		return ExitUsage, err
	}
	if r.Summary.Errors > 0 {
		return ExitUsage, fmt.Errorf("%d of %d cases failed at the gate (first: %s)", r.Summary.Errors, r.Summary.Cases, firstError(r))
	}
	if missed := o.Thresholds.Check(r.Summary); len(missed) > 0 {
		return ExitThreshold, fmt.Errorf("thresholds missed: %v", missed)
	}
	return ExitOK, nil
}

func write(out io.Writer, r Report, asJSON bool) error {
	if !asJSON {
		return WriteTable(out, r)
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

func firstError(r Report) string {
	for _, c := range r.Cases {
		if c.Error != "" {
			return c.ID + ": " + c.Error
		}
	}
	return ""
}

// checkCredentials fails before any call when a caller a case uses has no
// credential in the environment, rather than after a run of gate errors.
func (g *Gate) checkCredentials(s *Set) error {
	for _, c := range s.Cases {
		if _, _, err := g.credential(s.Callers[c.Caller]); err != nil {
			return fmt.Errorf("case %s: %w", c.ID, err)
		}
	}
	return nil
}
