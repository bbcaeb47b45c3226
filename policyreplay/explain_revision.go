package policyreplay

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wikigate/wikigate/policies"
)

// policyFor picks the policy folder to explain ev with: the revision that
// made the decision, from the sources the gate kept (--revisions), else
// the given policy when it is that revision. When neither is, it says so
// on out and uses the given policy: the explanation is then of what that
// policy would decide, which may differ from what was decided.
func policyFor(out io.Writer, o ExplainOptions, ev *Recorded) string {
	rev := ev.revision()
	if rev == "" {
		return o.Policy // a bare input: no recorded revision
	}
	if o.Revisions != "" {
		kept := filepath.Join(o.Revisions, rev)
		if got, _, err := policies.FolderRevision(kept); err == nil && got == rev {
			fmt.Fprintf(out, "policy: revision %s, as the gate served it (kept in %s)\n", rev, kept)
			return kept
		} else if err == nil {
			fmt.Fprintf(out, "warning: %s holds revision %s, not %s: its files were changed after the gate kept them\n", kept, got, rev)
		}
	}
	if got, _, err := policies.FolderRevision(o.Policy); err == nil && got == rev {
		return o.Policy
	} else if err == nil {
		fmt.Fprintf(out, "warning: cannot explain with revision %s, which made this decision: %s; %s is revision %s, so what follows is what revision %s decides, which may differ from what was decided\n",
			rev, whyNotKept(o.Revisions, rev), o.Policy, got, got)
	}
	return o.Policy
}

// whyNotKept says where the revision was looked for.
func whyNotKept(dir, rev string) string {
	if dir == "" {
		return "no --revisions folder was given (the gate keeps its served revisions in its data directory's policy-revisions)"
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Sprintf("%s cannot be read (%v)", dir, err)
	}
	var kept []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			kept = append(kept, e.Name())
		}
	}
	slices.Sort(kept)
	if len(kept) == 0 {
		return fmt.Sprintf("%s keeps no revision", dir)
	}
	return fmt.Sprintf("%s does not keep it (it keeps %s; older revisions are removed past keep_revisions)", dir, strings.Join(kept, ", "))
}

// revision is the policy revision the event names (OPA's bundles field).
func (ev *Recorded) revision() string {
	for _, b := range ev.Bundles {
		if b.Revision != "" {
			return b.Revision
		}
	}
	return ""
}
