package policies

import (
	"errors"
	"fmt"
	"slices"

	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/scope"
)

// checkAllow holds an allow to what the gateway relies on downstream: a fully
// filled scope and datasets that lie inside it. An empty dataset list must
// never reach RAGFlow, which reads it as "every dataset" (docs/backends.md,
// RAGFlow traps), and a working dataset needs includeWorkingDocs
// (docs/security.md, What the policy decides).
func (w wireDecision) checkAllow() error {
	s := w.Scope
	switch {
	case s == nil:
		return errors.New("allow without a scope")
	case !allNonEmpty(s.Projects):
		return errors.New("allow with empty scope projects")
	case !allNonEmpty(s.Paths):
		return errors.New("allow with empty scope paths")
	case s.Version == "":
		return errors.New("allow without a scope version")
	case len(w.Datasets) == 0:
		return errors.New("allow without datasets")
	case w.Index == "":
		return errors.New("allow without a search index")
	}
	for _, d := range w.Datasets {
		if err := checkDataset(d, w); err != nil {
			return err
		}
	}
	if err := checkProjectPaths(w.ProjectPaths, *s); err != nil {
		return err
	}
	return checkPages(w.Pages, w.ProjectPaths)
}

// checkPages holds the readable get_page pages to project_paths: a page the
// policy lets through must lie inside a path it pairs with a project, so a
// policy edit cannot have the gateway fetch a page outside the scope.
func checkPages(pages []string, pp map[string][]string) error {
	for _, page := range pages {
		if !pageInProjectPaths(page, pp) {
			return fmt.Errorf("pages holds %q outside project_paths", page)
		}
	}
	return nil
}

func pageInProjectPaths(page string, pp map[string][]string) bool {
	for _, paths := range pp {
		if slices.ContainsFunc(paths, func(base string) bool { return scope.Covers(base, page) }) {
			return true
		}
	}
	return false
}

// checkProjectPaths holds project_paths to the scope it narrows: every
// effective project has at least one path, every path is one of the scope's
// paths or lies inside one, and no other project appears. Without these,
// a missing entry would leave a project unsearchable at best, and a path
// outside the scope would widen what the response-side check lets through.
func checkProjectPaths(pp map[string][]string, s protocol.Scope) error {
	if pp == nil {
		return errors.New("allow without project_paths")
	}
	for _, p := range s.Projects {
		if len(pp[p]) == 0 {
			return fmt.Errorf("project_paths gives project %q no path", p)
		}
	}
	for p, paths := range pp {
		if !slices.Contains(s.Projects, p) {
			return fmt.Errorf("project_paths names project %q outside the scope", p)
		}
		for _, x := range paths {
			if !slices.ContainsFunc(s.Paths, func(base string) bool { return scope.Covers(base, x) }) {
				return fmt.Errorf("project_paths gives project %q path %q outside the scope", p, x)
			}
		}
	}
	return nil
}

func checkDataset(d Dataset, w wireDecision) error {
	switch {
	case d.ID == "":
		return errors.New("dataset without an id")
	case !slices.Contains(w.Scope.Projects, d.Project) || d.Version != w.Scope.Version:
		return fmt.Errorf("dataset %q lies outside the decided scope", d.ID)
	case d.Status == "approved":
		return nil
	case d.Status == "working" && w.Scope.IncludeWorkingDocs:
		return nil
	default:
		return fmt.Errorf("dataset %q has status %q the scope does not allow", d.ID, d.Status)
	}
}

func allNonEmpty(values []string) bool {
	return len(values) > 0 && !slices.Contains(values, "")
}
