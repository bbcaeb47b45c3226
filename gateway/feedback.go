package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"time"
	"unicode/utf8"

	"github.com/wikigate/wikigate/dedupe"
	"github.com/wikigate/wikigate/feedback"
	"github.com/wikigate/wikigate/normalizer"
	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/scope"
	"github.com/wikigate/wikigate/sessions"
)

// feedbackRequest is the body of create_feedback and create_improvement_task
// (docs/protocol.md, "FeedbackResult"). The dedupeKey is always computed here;
// a client-sent one is accepted for convenience and ignored.
type feedbackRequest struct {
	protocol.Standard
	EventType      string              `json:"eventType"`
	Citations      []protocol.Citation `json:"citations,omitempty"`
	Comment        string              `json:"comment,omitempty"`
	Rating         string              `json:"rating,omitempty"`
	Title          string              `json:"title,omitempty"`
	IdempotencyKey string              `json:"idempotencyKey,omitempty"`
	DedupeKey      string              `json:"dedupeKey,omitempty"`
	paths          []string
}

const (
	maxFeedbackCitations = 20
	maxCommentRunes      = 4000
	maxTitleRunes        = 200
)

var (
	validEventType      = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)
	validIdempotencyKey = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)
)

func (r *feedbackRequest) standard() *protocol.Standard { return &r.Standard }

// pages are the cited paths: the policy checks they lie in the scope.
func (r *feedbackRequest) pages() []string { return r.paths }

func (r *feedbackRequest) validate() error {
	switch {
	case !validEventType.MatchString(r.EventType):
		return invalid("eventType is required: lower-case letters, digits and _, e.g. qa_no_answer")
	case r.IdempotencyKey != "" && !validIdempotencyKey.MatchString(r.IdempotencyKey):
		return invalid("idempotencyKey must be 1-128 characters of A-Z a-z 0-9 . _ : -")
	case len(r.Citations) > maxFeedbackCitations:
		return invalid(fmt.Sprintf("citations has more than %d entries", maxFeedbackCitations))
	case utf8.RuneCountInString(r.Comment) > maxCommentRunes:
		return invalid(fmt.Sprintf("comment is longer than %d characters", maxCommentRunes))
	case utf8.RuneCountInString(r.Title) > maxTitleRunes:
		return invalid(fmt.Sprintf("title is longer than %d characters", maxTitleRunes))
	}
	if err := r.validateRating(); err != nil {
		return err
	}
	for i, c := range r.Citations {
		p, err := scope.NormalizePath(fmt.Sprintf("citations[%d].path", i), c.Path)
		if err != nil {
			return err
		}
		r.paths = append(r.paths, p)
	}
	return validateStandard(&r.Standard, true)
}

// validateRating: feedback on an answer (qa_answer) rates it helpful or
// not_helpful, and only such feedback carries a rating.
func (r *feedbackRequest) validateRating() error {
	switch {
	case r.EventType == protocol.EventAnswer && r.Rating != protocol.RatingHelpful && r.Rating != protocol.RatingNotHelpful:
		return invalid("rating is required with eventType qa_answer: helpful or not_helpful")
	case r.EventType != protocol.EventAnswer && r.Rating != "":
		return invalid("rating rates an answer: send it with eventType qa_answer")
	}
	return nil
}

// feedbackResponse is what the caller sees of a record: never the other
// callers who reported the same gap, nor their comments.
type feedbackResponse struct {
	Record  feedbackView   `json:"record"`
	Created bool           `json:"created"`
	Audit   protocol.Audit `json:"audit"`
}

type feedbackView struct {
	ID          string             `json:"id"`
	Type        string             `json:"type"`
	EventType   string             `json:"eventType"`
	DedupeKey   string             `json:"dedupeKey"`
	Status      string             `json:"status"`
	Count       int                `json:"count"`
	Ratings     *feedback.Ratings  `json:"ratings,omitempty"`
	FirstSeenAt time.Time          `json:"firstSeenAt"`
	LastSeenAt  time.Time          `json:"lastSeenAt"`
	Issue       *feedback.IssueRef `json:"issue,omitempty"`
}

// runFeedback stores (or merges, or replays) one submission. The response
// is rendered inside the store's transaction so a retry with the same
// idempotencyKey gets the first response byte for byte.
func (g *Gateway) runFeedback(ctx context.Context, c *call) (protocol.Result, error) {
	req := c.req.(*feedbackRequest)
	sub := feedback.Submission{
		Tool: c.rec.Tool, EventType: req.EventType, Question: req.Question,
		Scope: c.decision.Scope, CitationPaths: req.paths,
		Title: req.Title, Comment: req.Comment, Rating: req.Rating,
		// Anonymous readers (people's /answer/feedback) share the caller
		// "anonymous": their addresses are never stored.
		Caller:         feedback.Caller{Type: c.principal.Type, ID: c.audit().Caller, At: g.now()},
		IdempotencyKey: req.IdempotencyKey,
		BodyHash:       bodyHash(c.rec.Tool, req),
	}
	audit := c.audit()
	res, err := g.deps.Feedback.Submit(ctx, sub, func(r feedback.Result) ([]byte, error) {
		return json.Marshal(feedbackResponse{Record: viewOf(r.Record), Created: r.Created, Audit: audit})
	})
	switch {
	case errors.Is(err, feedback.ErrIdempotencyConflict):
		return nil, protocol.NewError(protocol.CodeIdempotency, "idempotencyKey was already used with a different request body")
	case errors.Is(err, feedback.ErrUnavailable):
		return nil, protocol.NewError(protocol.CodeFeedbackStoreUnavailable, "the feedback store is unavailable; nothing was recorded, try again shortly")
	case errors.Is(err, feedback.ErrInvalidSubmission):
		return nil, protocol.NewError(protocol.CodeInvalidRequest, "the feedback submission is incomplete: eventType and question are required")
	}
	if err != nil {
		return nil, err
	}
	c.rec.Result = feedbackResult(res)
	return &protocol.FeedbackReceipt{Body: res.Response, Replay: res.Replayed}, nil
}

func feedbackResult(r feedback.Result) string {
	switch {
	case r.Replayed:
		return "replayed"
	case r.Created:
		return "created"
	}
	return "merged"
}

func viewOf(r feedback.Record) feedbackView {
	return feedbackView{
		ID: r.ID, Type: r.Tool, EventType: r.EventType, DedupeKey: r.DedupeKey, Status: r.Status,
		Count: r.Count, Ratings: r.Ratings, FirstSeenAt: r.FirstSeenAt, LastSeenAt: r.LastSeenAt, Issue: r.Issue,
	}
}

// bodyHash identifies "the same request" for idempotency: the tool and the
// validated fields, not the raw bytes (key order and spacing don't matter).
func bodyHash(tool string, r *feedbackRequest) string {
	canon, _ := json.Marshal(struct {
		Tool, EventType, Question, Comment, Title string
		Scope                                     *protocol.Scope
		Paths                                     []string
		Rating                                    string `json:",omitempty"` // absent without one: older keys still match
	}{tool, r.EventType, r.Question, r.Comment, r.Title, r.Scope, r.paths, r.Rating})
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:])
}

// answerKey computes the dedupeKey of an answer's create_feedback action
// (docs/protocol.md, "The dedupe key"): dedupe.Key over qa_answer, the
// question, the decided scope and the cited paths, which is what runFeedback
// computes from a rating that sends the same question and citations back.
func answerKey(question string, eff protocol.Scope) func([]string) string {
	return func(paths []string) string { return dedupe.Key(protocol.EventAnswer, question, eff, paths) }
}

// turnActions are the actions a stored session turn's answer offered,
// keyed as the answer keyed them (answerKey, or the no-answer's key).
func turnActions(t sessions.Turn, eff protocol.Scope, o normalizer.AnswerOptions) []protocol.Action {
	if t.NoAnswer {
		return normalizer.Actions(true, dedupe.Key(protocol.EventNoAnswer, t.Question, eff, nil), o)
	}
	return normalizer.Actions(false, answerKey(t.Question, eff)(normalizer.CitationPaths(t.Citations)), o)
}
