package policies

import "errors"

// Reload outcomes, the label values of the reload metric. A reload that
// finds the serving policy unchanged is not an outcome: pollers would count
// it every few seconds.
const (
	ReloadActivated   = "activated"    // a new revision serves
	ReloadInvalid     = "invalid"      // it did not read, parse or compile
	ReloadTestsFailed = "tests_failed" // it compiled but its own tests failed
	ReloadRefused     = "refused"      // a bundle with a bad signature or format
	ReloadUnavailable = "unavailable"  // the bundle server could not be reached
)

// ReloadObserver is told about reloads (metrics). Calls come from the
// goroutine that reloads, never concurrently for one engine.
type ReloadObserver interface {
	// PolicyReload counts one reload by outcome.
	PolicyReload(outcome string)
	// PolicyRevision names the revision now serving (at load and after
	// each activation).
	PolicyRevision(revision string)
}

type nopObserver struct{}

func (nopObserver) PolicyReload(string)   {}
func (nopObserver) PolicyRevision(string) {}

// outcomeOf classifies a failed reload.
func outcomeOf(err error) string {
	var tf *TestsFailedError
	var un *UnavailableError
	switch {
	case errors.As(err, &tf):
		return ReloadTestsFailed
	case errors.As(err, &un):
		return ReloadUnavailable
	case errors.Is(err, ErrBundleRefused):
		return ReloadRefused
	}
	return ReloadInvalid
}
