package evalrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"

	"github.com/wikigate/wikigate/feedback"
	"github.com/wikigate/wikigate/feedback/pgstore"
)

// Event types and ratings of the records `--from-feedback` reads
// (docs/protocol.md, Results: FeedbackResult). They are spelled here, not
// taken from package protocol, so this file reads records written by any
// gate version.
const (
	eventNoAnswer    = "qa_no_answer" // the gate gave a no-answer and a reader reported the gap
	eventAnswer      = "qa_answer"    // a reader rated an answer
	ratingNotHelpful = "not_helpful"
)

// feedbackRecord is what a candidate case needs of a feedback record. It is
// decoded from the record's JSON, so a store that does not keep ratings
// yet reads as "no rating".
type feedbackRecord struct {
	ID            string   `json:"id"`
	Tool          string   `json:"tool"`
	EventType     string   `json:"eventType"`
	Question      string   `json:"question"`
	Status        string   `json:"status"`
	Count         int      `json:"count"`
	CitationPaths []string `json:"citationPaths"`
	Comments      []string `json:"comments"`
	Scope         struct {
		Projects           []string `json:"projects"`
		Paths              []string `json:"paths"`
		Version            string   `json:"version"`
		IncludeWorkingDocs bool     `json:"includeWorkingDocs"`
	} `json:"scope"`
	Callers []struct {
		Type   string `json:"type"`
		Rating string `json:"rating"`
	} `json:"callers"`
	Ratings *struct {
		Helpful    int `json:"helpful"`
		NotHelpful int `json:"notHelpful"`
	} `json:"ratings"`
}

// notHelpful counts the record's "not helpful" ratings.
func (r feedbackRecord) notHelpful() int {
	if r.Ratings != nil {
		return r.Ratings.NotHelpful
	}
	n := 0
	for _, c := range r.Callers {
		if c.Rating == ratingNotHelpful {
			n++
		}
	}
	return n
}

// candidate reports whether an open record asks for a case: a reported
// no-answer, or an answer a reader found not helpful.
func (r feedbackRecord) candidate() bool {
	if r.Status != feedback.StatusOpen || strings.TrimSpace(r.Question) == "" {
		return false
	}
	switch r.EventType {
	case eventNoAnswer:
		return true
	case eventAnswer:
		return r.notHelpful() > 0
	}
	return false
}

// ReadFeedback lists every record of a feedback store: a bbolt file
// (data/feedback.db) or a PostgreSQL URL (postgres://…), the two stores a
// gate keeps records in (docs/eval.md "Measuring answer quality").
func ReadFeedback(ctx context.Context, source string) ([]feedbackRecord, error) {
	var recs []feedback.Record
	var err error
	if strings.HasPrefix(source, "postgres://") || strings.HasPrefix(source, "postgresql://") {
		recs, err = readPostgres(ctx, source)
	} else {
		recs, err = readBolt(source)
	}
	if err != nil {
		return nil, err
	}
	out := make([]feedbackRecord, 0, len(recs))
	for _, r := range recs {
		b, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		var fr feedbackRecord
		if err := json.Unmarshal(b, &fr); err != nil {
			return nil, err
		}
		out = append(out, fr)
	}
	return out, nil
}

// readBolt opens the file only if it exists (feedback.Open would create
// it). A running gate holds the file's lock: the error says so.
func readBolt(path string) ([]feedback.Record, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("feedback store: %w", err)
	}
	st, err := feedback.Open(path, feedback.Options{})
	if err != nil {
		return nil, fmt.Errorf("%w (a running gate holds data/feedback.db: stop it, or read a copy of the file)", err)
	}
	defer st.Close()
	return st.List("")
}

func readPostgres(ctx context.Context, dsn string) ([]feedback.Record, error) {
	st, err := pgstore.Open(ctx, pgstore.Config{DSN: dsn})
	if err != nil {
		// pgstore's errors never hold the DSN's password.
		return nil, fmt.Errorf("feedback store: %w", err)
	}
	defer st.Close()
	return st.List(ctx, "")
}

// errNoSource is the usage error of an empty --from-feedback.
var errNoSource = errors.New("--from-feedback needs a feedback store: data/feedback.db or a postgres:// URL")

// fromFeedback is `wikigate eval --from-feedback STORE`: the candidate set
// goes to out, a count to o.Notes.
func fromFeedback(ctx context.Context, o Options, out io.Writer) (int, error) {
	if strings.TrimSpace(o.FromFeedback) == "" {
		return ExitUsage, errNoSource
	}
	recs, err := ReadFeedback(ctx, o.FromFeedback)
	if err != nil {
		return ExitUsage, err
	}
	cands := Candidates(recs)
	if err := WriteCandidates(out, sourceName(o.FromFeedback), cands); err != nil {
		return ExitUsage, err
	}
	if o.Notes != nil {
		fmt.Fprintf(o.Notes, "%d candidate case(s) from %d open record(s) (%d records read)\n", len(cands), countRecords(cands), len(recs))
	}
	return ExitOK, nil
}

// sourceName names the store in the set's header without a PostgreSQL
// URL's user and password.
func sourceName(source string) string {
	if u, err := url.Parse(source); err == nil && u.Scheme != "" && u.Host != "" {
		return u.Scheme + "://" + u.Host + u.Path
	}
	return source
}
