package protocol

import "slices"

// Caller is the body's self-description (docs/protocol.md, The standard
// request). The authenticated identity is the caller; a body caller naming
// someone else is refused and Purpose is kept for audit only.
type Caller struct {
	Type    string `json:"type,omitempty"`
	ID      string `json:"id,omitempty"`
	Purpose string `json:"purpose,omitempty"`
}

// Scope is a requested or effective scope (docs/protocol.md, The standard
// request). A requested scope is only a request; the policy decides the
// effective one.
//
// ProjectPaths and Datasets are gate-internal parts of an effective scope,
// set only from a policy decision and never serialized: the flat Projects
// and Paths lose which path belongs to which project, so backend filters and
// the response-side check narrow each project to ProjectPaths[project]
// (a nil map means no pairing is known), and drop anything from a dataset
// outside Datasets (nil: not checked). Treat both as read-only: copies of a
// Scope share them.
type Scope struct {
	Projects           []string `json:"projects,omitempty"`
	Paths              []string `json:"paths,omitempty"`
	Version            string   `json:"version,omitempty"`
	IncludeWorkingDocs bool     `json:"includeWorkingDocs"`

	ProjectPaths map[string][]string `json:"-"`
	Datasets     []string            `json:"-"`
}

// PageRef names the page a human asked from (docs/protocol.md, The standard
// request: the default scope of a human question is derived from it).
//
// Version is gate-internal, never read from a body: the docs version a
// versioned page URL names (/v1.0/...), set when the URL is mapped back to
// the page's path, so the policy can make it the default scope's version.
type PageRef struct {
	Path string `json:"path,omitempty"`
	URL  string `json:"url,omitempty"`

	Version string `json:"-"`
}

// Standard is the standard request every tool accepts (docs/protocol.md, The
// standard request).
type Standard struct {
	Caller           *Caller  `json:"caller,omitempty"`
	Scope            *Scope   `json:"scope,omitempty"`
	Question         string   `json:"question,omitempty"`
	RequireCitations *bool    `json:"requireCitations,omitempty"`
	Page             *PageRef `json:"page,omitempty"`
}

// SearchRequest is the body of POST /agent/tools/search.
type SearchRequest struct {
	Standard
	Limit int `json:"limit,omitempty"`
}

// GetPageRequest is the body of POST /agent/tools/get_page: one Path or up to
// MaxPagePaths Paths.
type GetPageRequest struct {
	Standard
	Path  string   `json:"path,omitempty"`
	Paths []string `json:"paths,omitempty"`
}

// Limits on request fields; bodies over them are invalid_request.
const (
	MaxPagePaths      = 10
	MaxSearchLimit    = 50
	DefaultLimit      = 10
	MaxQuestionRunes  = 2000
	MaxScopeEntries   = 20
	MaxPathBytes      = 512
	MaxIdentifierRune = 128
)

// Clone returns a deep copy of s: a Scope is a value, but its slices and
// map are shared references.
func (s Scope) Clone() Scope {
	s.Projects = slices.Clone(s.Projects)
	s.Paths = slices.Clone(s.Paths)
	s.Datasets = slices.Clone(s.Datasets)
	if s.ProjectPaths != nil {
		pp := make(map[string][]string, len(s.ProjectPaths))
		for p, paths := range s.ProjectPaths {
			pp[p] = slices.Clone(paths)
		}
		s.ProjectPaths = pp
	}
	return s
}
