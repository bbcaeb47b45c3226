package feedback

import (
	"context"
	"net/http"
	"strconv"
	"strings"
)

// findPageSize is how many of the newest issues FindIssue reads. The issue
// it looks for was created moments before its answer got lost, so it is
// among the newest; GitHub's search API is not used because its index lags
// behind a fresh issue by up to minutes.
const findPageSize = 100

// recordMarker is the hidden line in an issue body that names the record
// it was created for.
func recordMarker(id string) string { return "<!-- wikigate-record: " + id + " -->" }

// FindIssue implements IssueFinder: it looks for the issue created for rec
// (by the marker in its body) among the repository's newest issues, open
// or closed.
func (g *GitHubSink) FindIssue(ctx context.Context, rec Record) (IssueRef, bool, error) {
	var issues []struct {
		issueReply
		Body string `json:"body"`
	}
	path := "/repos/" + g.repo + "/issues?state=all&sort=created&direction=desc&per_page=" + strconv.Itoa(findPageSize)
	if err := g.call(ctx, http.MethodGet, path, nil, http.StatusOK, &issues); err != nil {
		return IssueRef{}, false, err
	}
	marker := recordMarker(rec.ID)
	for _, is := range issues {
		if is.Number > 0 && strings.Contains(is.Body, marker) {
			return is.ref(), true, nil
		}
	}
	return IssueRef{}, false, nil
}
