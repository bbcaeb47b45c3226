package policies

import (
	"errors"
	"fmt"
	"slices"
)

// checkAllow holds an allow to what the gateway relies on downstream: a fully
// filled scope and datasets that lie inside it. An empty dataset list must
// never reach RAGFlow, which reads it as "every dataset" (DESIGN §5), and a
// working dataset needs includeWorkingDocs (protocol §6.3).
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
