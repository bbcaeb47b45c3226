package scope

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/wikigate/wikigate/protocol"
)

// identifierPattern is the shape of project names and versions: lowercase
// so a case-insensitive backend cannot confuse two of them, and no
// characters that would need quoting anywhere.
var identifierPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,127}$`)

// Status values a page may carry (docs/backends.md).
const (
	StatusApproved = "approved"
	StatusWorking  = "working"
)

// Normalize validates a requested scope and returns a normalized copy:
// projects and version must match identifierPattern, paths go through
// NormalizePath, duplicates are removed keeping the first occurrence, and
// each list holds at most protocol.MaxScopeEntries entries. Errors are
// *protocol.Error invalid_request naming the field, e.g. "scope.paths[1]".
// A nil scope stays nil: a missing scope is the policy's to fill in.
func Normalize(s *protocol.Scope) (*protocol.Scope, error) {
	if s == nil {
		return nil, nil
	}
	out := &protocol.Scope{Version: s.Version, IncludeWorkingDocs: s.IncludeWorkingDocs}
	if s.Version != "" && !identifierPattern.MatchString(s.Version) {
		return nil, invalid("scope.version", identifierRule)
	}
	var err error
	if out.Projects, err = normalizeList("scope.projects", s.Projects, normalizeIdentifier); err != nil {
		return nil, err
	}
	if out.Paths, err = normalizeList("scope.paths", s.Paths, NormalizePath); err != nil {
		return nil, err
	}
	return out, nil
}

const identifierRule = "must be 1-128 lowercase letters, digits, '.', '_' or '-', starting with a letter or digit"

func normalizeIdentifier(field, v string) (string, error) {
	if !identifierPattern.MatchString(v) {
		return "", invalid(field, identifierRule)
	}
	return v, nil
}

// normalizeList applies norm to every entry and drops duplicates. The entry
// count is checked before any work so an oversized list costs nothing.
func normalizeList(field string, in []string, norm func(field, v string) (string, error)) ([]string, error) {
	if len(in) > protocol.MaxScopeEntries {
		return nil, invalid(field, fmt.Sprintf("must have at most %d entries", protocol.MaxScopeEntries))
	}
	if in == nil {
		return nil, nil
	}
	out := make([]string, 0, len(in))
	for i, v := range in {
		n, err := norm(fmt.Sprintf("%s[%d]", field, i), v)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out, nil
}

// Doc is what the response-side check needs to know about one backend
// document, hit or chunk. DatasetID is "" when the backend does not say
// (Meilisearch hits); RAGFlow chunks carry theirs.
type Doc struct {
	Project, Version, Status, Path, DatasetID string
}

// Contains is the response-side check (docs/security.md, What the policy
// decides): d is inside s when its project is one of s.Projects, its version
// equals s.Version, its status is approved (or working when
// s.IncludeWorkingDocs), and its path is covered by one of s.Paths. When the
// policy paired projects with paths (s.ProjectPaths non-nil), the path must
// also be covered by one of s.ProjectPaths[d.Project]: a page of one project
// under a path granted only for another is outside. When s.Datasets is
// non-nil, a document that names its dataset must name one of them. Every
// comparison is exact and case-sensitive; anything else, including empty
// fields and unknown statuses, is outside.
func Contains(s protocol.Scope, d Doc) bool {
	if d.Project == "" || !slices.Contains(s.Projects, d.Project) {
		return false
	}
	if d.Version == "" || d.Version != s.Version {
		return false
	}
	switch d.Status {
	case StatusApproved:
	case StatusWorking:
		if !s.IncludeWorkingDocs {
			return false
		}
	default:
		return false
	}
	if s.Datasets != nil && d.DatasetID != "" && !slices.Contains(s.Datasets, d.DatasetID) {
		return false
	}
	if s.ProjectPaths != nil && !coveredByAny(s.ProjectPaths[d.Project], d.Path) {
		return false
	}
	return coveredByAny(s.Paths, d.Path)
}

func coveredByAny(prefixes []string, p string) bool {
	return slices.ContainsFunc(prefixes, func(prefix string) bool { return Covers(prefix, p) })
}

// String renders a scope for the audit block (docs/protocol.md, Results):
// "main:publish/system/components/kunora-kgent", i.e. the version, ":", the
// paths joined with ",", and "+working" when working docs are included.
func String(s protocol.Scope) string {
	out := s.Version + ":" + strings.Join(s.Paths, ",")
	if s.IncludeWorkingDocs {
		out += "+working"
	}
	return out
}
