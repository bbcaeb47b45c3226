package policies

import (
	"errors"
	"fmt"
	"slices"

	"github.com/wikigate/wikigate/protocol"
)

// Dataset is one RAGFlow dataset of the catalog a decision allows.
type Dataset struct {
	ID      string `json:"id"`
	Project string `json:"project"`
	Version string `json:"version"`
	Status  string `json:"status"` // "approved" | "working"
}

// Decision is what the policy decided about one call.
type Decision struct {
	Allow      bool
	Code       protocol.Code  // set when !Allow
	Reason     string         // safe for the caller: never reveals other callers' grants
	Scope      protocol.Scope // effective scope, every field filled (ProjectPaths and Datasets included when Allow)
	Datasets   []Dataset      // RAGFlow datasets for Scope, never empty when Allow
	Index      string         // Meilisearch index uid for Scope
	Write      bool           // the caller may perform this call's write action
	WriteTools []string       // every write tool the caller may use (enables feedback actions)
	// Pages are the requested get_page paths the caller may read, each
	// inside Scope.ProjectPaths; the gateway fetches only these and reports
	// the other requested pages as forbidden_scope one by one.
	Pages []string
	// Limits are the call's rate limits, enforced once it is decided and
	// before its tool runs; none when the policy sets none.
	Limits   []Limit
	Revision string // revision of the policy that decided
	// Digest is the SHA-256 (hex) of the files of the revision that
	// decided: what a kept copy of its sources (KeepRevisions) must hash to.
	Digest string
	// Rules are the policy's rules that decided a denial, file:line and
	// name (attribute); none for an allow.
	Rules []Rule
	// result is what the policy returned, unchanged (the decision log's
	// result): an *ast.Term from topdown, JSON bytes from Wasm.
	result any
}

// ErrUndefinedDecision means the policy produced no decision for the input.
// The caller must deny: an undefined decision is never an allow.
var ErrUndefinedDecision = errors.New("policy decision is undefined")

// denyCodes are the codes a policy may deny with (docs/protocol.md, Order of
// checks). Any other code is a policy bug and is reported as an error so the
// gateway denies with an internal error rather than an unexpected status.
var denyCodes = []protocol.Code{
	protocol.CodeUnauthorized,
	protocol.CodeForbiddenTool,
	protocol.CodeForbiddenScope,
	protocol.CodeDatasetNotAllowed,
	protocol.CodeSessionForbidden,
}

// wireDecision is the decision object as the policy writes it
// ({allow, code, reason, scope, project_paths, datasets, index, write,
// write_tools, pages}, read by readWireDecision). A nil Allow or Scope means the
// policy left it out.
type wireDecision struct {
	Allow        *bool
	Code         protocol.Code
	Reason       string
	Scope        *protocol.Scope
	ProjectPaths map[string][]string // nil when the policy left project_paths out
	Datasets     []Dataset
	Index        string
	Write        bool
	WriteTools   []string
	Pages        []string
	Limits       []Limit
}

func (w wireDecision) toDecision() (Decision, error) {
	if w.Allow == nil {
		return Decision{}, errors.New("malformed policy decision: allow is missing")
	}
	if !*w.Allow {
		return w.toDenial()
	}
	if err := w.checkAllow(); err != nil {
		return Decision{}, fmt.Errorf("malformed policy decision: %w", err)
	}
	eff := *w.Scope
	eff.ProjectPaths = w.ProjectPaths
	eff.Datasets = datasetIDs(w.Datasets)
	return Decision{
		Allow:      true,
		Scope:      eff,
		Datasets:   w.Datasets,
		Index:      w.Index,
		Write:      w.Write,
		WriteTools: w.WriteTools,
		Pages:      w.Pages,
		Limits:     w.Limits,
	}, nil
}

// toDenial keeps only code and reason: a deny carries no scope or datasets
// that a careless caller could act on.
func (w wireDecision) toDenial() (Decision, error) {
	if !slices.Contains(denyCodes, w.Code) {
		return Decision{}, fmt.Errorf("malformed policy decision: deny with unknown code %q", w.Code)
	}
	reason := w.Reason
	if reason == "" {
		reason = "denied by policy"
	}
	return Decision{Code: w.Code, Reason: reason}, nil
}

// datasetIDs lists the ids of ds in order, for protocol.Scope.Datasets.
func datasetIDs(ds []Dataset) []string {
	ids := make([]string, len(ds))
	for i, d := range ds {
		ids[i] = d.ID
	}
	return ids
}
