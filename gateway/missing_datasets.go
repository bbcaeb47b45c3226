package gateway

import (
	"errors"
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/wikigate/wikigate/ragflow"
)

// A decided dataset RAGFlow does not have (a catalog still naming the
// sample's datasets, a default scope naming a project never loaded) is
// treated as a dataset with no pages, the way search treats a project the
// index holds no page of: the question is answered from the datasets that
// exist, or honestly not answered (200, result no_answer) when none does.
// It is not an outage, so not a 503; the audit record keeps RAGFlow's
// refusal (backends[].error) and the gate logs which dataset is missing,
// which `wikigate doctor` also reports (docs/ingest.md, Adding a project).

// missingDataset is the decided dataset a RAGFlow retrieval refused as
// not existing ("You don't own the dataset <id>", code 102), or "".
func missingDataset(err error, ids []string) string {
	var re *ragflow.Error
	if !errors.As(err, &re) || re.Kind != ragflow.Rejected || !strings.Contains(re.Detail, "own the dataset") {
		return ""
	}
	for _, id := range ids {
		if strings.Contains(re.Detail, id) {
			return id
		}
	}
	return ""
}

// retrieveSkippingMissing runs retrieve's call again without each dataset
// RAGFlow refused as missing, at most once per dataset. It returns the
// chunks of the datasets that exist (none when no dataset does) or the
// first error that is not a missing dataset.
func (g *Gateway) retrieveSkippingMissing(c *call, ids []string, err error,
	call func([]string) ([]ragflow.Chunk, error)) ([]ragflow.Chunk, error) {
	for missing := missingDataset(err, ids); missing != ""; missing = missingDataset(err, ids) {
		g.deps.Logger.Warn("a decided dataset does not exist in RAGFlow; answering from the others (wikigate doctor lists the catalog's missing datasets)",
			zapRequestID(c.rec.RequestID), zap.String("dataset", missing))
		ids = slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return id == missing })
		if len(ids) == 0 {
			return nil, nil
		}
		var chunks []ragflow.Chunk
		if chunks, err = call(ids); err == nil {
			return chunks, nil
		}
	}
	return nil, err
}

// retrievalFailure is a failed retrieval: RAGFlow's error, to tell a
// missing dataset, and the reply the caller gets (ragflowFailure's).
type retrievalFailure struct {
	raw   error
	reply error
}

func (f *retrievalFailure) Error() string { return f.raw.Error() }
func (f *retrievalFailure) Unwrap() error { return f.raw }

// replyOf is the reply a failed retrieval gives the caller.
func replyOf(err error) error {
	var f *retrievalFailure
	if errors.As(err, &f) {
		return f.reply
	}
	return err
}
