package feedback

import (
	"errors"
	"slices"
	"time"

	"github.com/wikigate/wikigate/protocol"
)

// Tools that write to the store. Each is its own record space: a feedback
// record and an improvement task with the same dedupe key never merge.
const (
	ToolFeedback        = protocol.ActionCreateFeedback
	ToolImprovementTask = protocol.ActionCreateImprovementTask
)

// Record statuses.
const (
	StatusOpen   = "open"
	StatusClosed = "closed"
)

// Bounds on what one record keeps, so a hot knowledge gap reported
// thousands of times stays a small value. Count stays exact regardless.
const (
	maxComments = 20
	maxCallers  = 100
)

// Errors callers branch on.
var (
	// ErrIdempotencyConflict: the idempotency key was used before by the same
	// caller and tool with a different body (docs/protocol.md, Results:
	// FeedbackResult).
	ErrIdempotencyConflict = errors.New("idempotency key reused with a different request body")
	// ErrNotFound: no record has the requested ID.
	ErrNotFound = errors.New("feedback record not found")
	// ErrInvalidSubmission: the submission lacks what the store needs to key it.
	ErrInvalidSubmission = errors.New("invalid feedback submission")
)

// Caller is who reported one occurrence, and when. The spec requires the
// caller type and time to survive merging (docs/protocol.md, Results:
// FeedbackResult).
type Caller struct {
	Type string    `json:"type"`
	ID   string    `json:"id"`
	At   time.Time `json:"at"`
	// Rating is the occurrence's rating of an answer (protocol.Rating*),
	// "" for a report of a gap.
	Rating string `json:"rating,omitempty"`
}

// Ratings count an answer's ratings across its record's occurrences.
type Ratings struct {
	Helpful    int `json:"helpful"`
	NotHelpful int `json:"notHelpful"`
}

// Submission is one create_feedback or create_improvement_task call as the
// gateway decided it: Scope is the effective scope, never the requested one,
// so two callers asking the same thing within the same grant merge.
type Submission struct {
	Tool          string
	EventType     string
	Question      string
	Scope         protocol.Scope
	CitationPaths []string
	Title         string
	Comment       string
	// Rating rates an answer (protocol.RatingHelpful, RatingNotHelpful);
	// "" for a report of a gap.
	Rating         string
	Caller         Caller
	IdempotencyKey string // optional; scoped to (caller type, caller id, tool)
	BodyHash       string // sha256 of the canonical request body
}

// IssueRef maps a record onto its GitHub issue.
type IssueRef struct {
	Number int    `json:"number"`
	URL    string `json:"url"`
	State  string `json:"state"`
}

// Record is one knowledge gap or task: every occurrence with the same dedupe
// key merges into it while it is open.
type Record struct {
	ID            string         `json:"id"`
	Tool          string         `json:"tool"`
	EventType     string         `json:"eventType"`
	DedupeKey     string         `json:"dedupeKey"`
	Title         string         `json:"title"`
	Question      string         `json:"question"`
	Scope         protocol.Scope `json:"scope"`
	CitationPaths []string       `json:"citationPaths"`
	Comments      []string       `json:"comments"`
	Status        string         `json:"status"`
	Count         int            `json:"count"`
	FirstSeenAt   time.Time      `json:"firstSeenAt"`
	LastSeenAt    time.Time      `json:"lastSeenAt"`
	Callers       []Caller       `json:"callers"`
	// Ratings is set once an occurrence rated the answer.
	Ratings *Ratings  `json:"ratings,omitempty"`
	Issue   *IssueRef `json:"issue,omitempty"`
	// SyncPending is true while occurrences wait to reach the sink.
	SyncPending bool `json:"syncPending"`
}

// Result is the outcome of Submit. Response is what render produced for the
// first call; a replay returns the same bytes.
type Result struct {
	Record   Record
	Created  bool
	Replayed bool
	Response []byte
}

// occurrence is one report still to be told to the sink. Count is the
// record's count right after it, so a late comment states the count as it
// was then.
type occurrence struct {
	Caller  Caller `json:"caller"`
	Comment string `json:"comment,omitempty"`
	Count   int    `json:"count"`
}

// storedRecord is the value kept in bbolt: the public record plus its
// outbox state. SyncedCount is the count the sink has already been told;
// if the issue turns out closed upstream, everything after it moves to a
// new record.
type storedRecord struct {
	Record
	Pending     []occurrence `json:"pending,omitempty"`
	SyncedCount int          `json:"syncedCount,omitempty"`
}

// addOccurrence folds one report into r, keeping the bounded lists bounded.
func (r *Record) addOccurrence(c Caller, comment string) {
	r.Count++
	if r.FirstSeenAt.IsZero() {
		r.FirstSeenAt = c.At
	}
	r.LastSeenAt = c.At
	r.Callers = keepLast(append(r.Callers, c), maxCallers)
	if comment != "" {
		r.Comments = keepLast(append(r.Comments, comment), maxComments)
	}
	r.Ratings = r.Ratings.add(c.Rating, 1)
}

// add counts n more ratings of kind rating (n < 0 takes them away); a
// nil Ratings starts at zero, and "" changes nothing.
func (r *Ratings) add(rating string, n int) *Ratings {
	if rating != protocol.RatingHelpful && rating != protocol.RatingNotHelpful {
		return r
	}
	out := Ratings{}
	if r != nil {
		out = *r
	}
	if rating == protocol.RatingHelpful {
		out.Helpful += n
	} else {
		out.NotHelpful += n
	}
	return &out
}

// clone returns a deep copy, so a Record handed out never aliases one that
// is still being changed.
func (r Record) clone() Record {
	r.Scope = r.Scope.Clone()
	r.CitationPaths = slices.Clone(r.CitationPaths)
	r.Comments = slices.Clone(r.Comments)
	r.Callers = slices.Clone(r.Callers)
	if r.Ratings != nil {
		counts := *r.Ratings
		r.Ratings = &counts
	}
	if r.Issue != nil {
		ref := *r.Issue
		r.Issue = &ref
	}
	return r
}

func keepLast[T any](s []T, n int) []T {
	if len(s) <= n {
		return s
	}
	return slices.Clone(s[len(s)-n:])
}

func validTool(tool string) bool {
	return tool == ToolFeedback || tool == ToolImprovementTask
}
