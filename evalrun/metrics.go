package evalrun

import (
	"math"
	"slices"
	"sort"
	"strings"
	"time"
)

// Observation is what the gate returned for one case.
type Observation struct {
	SearchPaths   []string // hit paths, in rank order
	SearchDenied  bool     // search answered 403
	SearchLatency time.Duration
	AskDenied     bool // ask answered 403
	NoAnswer      bool // the answer carried a noAnswerReason
	Confidence    string
	CitedPaths    []string
	RelatedPaths  []string
	AskLatency    time.Duration
	Err           error // a gate error: the case is not scored
}

// CaseResult is one case's figures. Pointers are absent (null) where a
// figure does not apply to the case's kind.
type CaseResult struct {
	ID         string   `json:"id"`
	Kind       string   `json:"kind"`
	Caller     string   `json:"caller"`
	Rank       int      `json:"rank"` // 1-based rank of the first expected page among the distinct search hits; 0 none
	Hit1       *bool    `json:"hit1,omitempty"`
	Hit5       *bool    `json:"hit5,omitempty"`
	RR         *float64 `json:"reciprocalRank,omitempty"`
	Answered   bool     `json:"answered"` // an answer, not a no-answer nor a denial
	Denied     bool     `json:"denied"`
	Confidence string   `json:"confidence,omitempty"`
	CitePrec   *float64 `json:"citationPrecision,omitempty"`
	CiteRecall *float64 `json:"citationRecall,omitempty"`
	Correct    bool     `json:"correct"`
	Leaks      []string `json:"leaks"`
	SearchMS   float64  `json:"searchMs"`
	AskMS      float64  `json:"askMs"`
	Error      string   `json:"error,omitempty"`
}

// Score turns an observation into the case's figures.
//
// Search (answerable cases): the hits' distinct paths in rank order; hit@k
// is whether an expected page is among the first k, the reciprocal rank
// 1/rank of the first (0 when none).
//
// Citations (answerable cases): precision is the share of the distinct
// cited pages that are expected (only for an answer with citations);
// recall the share of expected pages cited (0 for a no-answer).
//
// Correct: an answerable case is answered and cites an expected page; an
// unanswerable or restricted case gets a no-answer or a denial, and no
// leak.
//
// Leaks: every distinct path in the search hits, citations and related
// pages that lies outside the allowed prefixes (when any are given) or
// inside a forbidden prefix.
func Score(s *Set, c Case, o Observation) CaseResult {
	r := CaseResult{ID: c.ID, Kind: c.Kind, Caller: c.Caller, Leaks: []string{}}
	if o.Err != nil {
		r.Error = o.Err.Error()
		return r
	}
	r.SearchMS, r.AskMS = ms(o.SearchLatency), ms(o.AskLatency)
	r.Denied = o.AskDenied
	r.Answered = !o.AskDenied && !o.NoAnswer
	r.Confidence = o.Confidence
	allowed, forbidden := s.bounds(c)
	r.Leaks = leaks(allowed, forbidden, o.SearchPaths, o.CitedPaths, o.RelatedPaths)
	if c.Kind != KindAnswerable {
		r.Correct = !r.Answered && len(r.Leaks) == 0
		return r
	}
	r.Rank = rank(distinct(o.SearchPaths), c.Expected)
	r.Hit1, r.Hit5 = ptr(r.Rank == 1), ptr(r.Rank >= 1 && r.Rank <= 5)
	rr := 0.0
	if r.Rank > 0 {
		rr = 1 / float64(r.Rank)
	}
	r.RR = &rr
	cited := distinct(o.CitedPaths)
	hits := countIn(cited, c.Expected)
	if r.Answered && len(cited) > 0 {
		r.CitePrec = ptr(float64(hits) / float64(len(cited)))
	}
	recall := 0.0
	if r.Answered {
		recall = float64(countIn(distinct(c.Expected), cited)) / float64(len(distinct(c.Expected)))
	}
	r.CiteRecall = &recall
	r.Correct = r.Answered && hits > 0 && len(r.Leaks) == 0
	return r
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func ptr[T any](v T) *T { return &v }

func distinct(paths []string) []string {
	var out []string
	for _, p := range paths {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

func rank(paths, expected []string) int {
	for i, p := range paths {
		if slices.Contains(expected, p) {
			return i + 1
		}
	}
	return 0
}

func countIn(paths, set []string) int {
	n := 0
	for _, p := range paths {
		if slices.Contains(set, p) {
			n++
		}
	}
	return n
}

func leaks(allowed, forbidden []string, lists ...[]string) []string {
	out := []string{}
	if len(allowed)+len(forbidden) == 0 {
		return out
	}
	for _, list := range lists {
		for _, p := range list {
			if slices.Contains(out, p) {
				continue
			}
			if (len(allowed) > 0 && !hasPrefix(p, allowed)) || hasPrefix(p, forbidden) {
				out = append(out, p)
			}
		}
	}
	return out
}

func hasPrefix(p string, prefixes []string) bool {
	return slices.ContainsFunc(prefixes, func(pre string) bool { return strings.HasPrefix(p, pre) })
}

// Summary is the set's figures. Averages are over the cases a figure
// applies to (N* says how many); a figure with no case is absent.
type Summary struct {
	Cases        int      `json:"cases"`
	Errors       int      `json:"errors"`
	Answerable   int      `json:"answerable"`
	Hit1         *float64 `json:"hit1,omitempty"`
	Hit5         *float64 `json:"hit5,omitempty"`
	MRR          *float64 `json:"mrr,omitempty"`
	AnswerRate   *float64 `json:"answerRate,omitempty"` // answerable cases answered
	CitePrec     *float64 `json:"citationPrecision,omitempty"`
	CiteRecall   *float64 `json:"citationRecall,omitempty"`
	NoAnswerPrec *float64 `json:"noAnswerPrecision,omitempty"`
	NoAnswerRec  *float64 `json:"noAnswerRecall,omitempty"`
	Leaks        int      `json:"leaks"` // leaked paths, over all cases
	// Calibration is the share of correct cases per confidence level
	// ("denied" for a 403, which carries none).
	Calibration map[string]Level `json:"calibration"`
	SearchP50   float64          `json:"searchP50Ms"`
	SearchP95   float64          `json:"searchP95Ms"`
	AskP50      float64          `json:"askP50Ms"`
	AskP95      float64          `json:"askP95Ms"`
}

// Level is the cases at one confidence level.
type Level struct {
	Cases    int     `json:"cases"`
	Correct  int     `json:"correct"`
	Accuracy float64 `json:"accuracy"`
}

// Summarize totals case results. Cases with a gate error count only in
// Cases and Errors.
//
// No-answer precision and recall take "the wiki should not answer" (the
// unanswerable and restricted cases) as the positive class and "the gate
// did not answer" (a no-answer or a denial) as the prediction.
func Summarize(results []CaseResult) Summary {
	s := Summary{Cases: len(results), Calibration: map[string]Level{}}
	var hit1, hit5, rr, answered, prec, recall mean
	var noPred, noTrue, noBoth int
	var search, ask []float64
	for _, r := range results {
		if r.Error != "" {
			s.Errors++
			continue
		}
		s.Leaks += len(r.Leaks)
		search, ask = append(search, r.SearchMS), append(ask, r.AskMS)
		calibrate(s.Calibration, r)
		shouldNot, didNot := r.Kind != KindAnswerable, !r.Answered
		noTrue, noPred = noTrue+b2i(shouldNot), noPred+b2i(didNot)
		noBoth += b2i(shouldNot && didNot)
		if r.Kind != KindAnswerable {
			continue
		}
		s.Answerable++
		hit1.add(b2f(*r.Hit1))
		hit5.add(b2f(*r.Hit5))
		rr.add(*r.RR)
		answered.add(b2f(r.Answered))
		if r.CitePrec != nil {
			prec.add(*r.CitePrec)
		}
		recall.add(*r.CiteRecall)
	}
	s.Hit1, s.Hit5, s.MRR, s.AnswerRate = hit1.value(), hit5.value(), rr.value(), answered.value()
	s.CitePrec, s.CiteRecall = prec.value(), recall.value()
	s.NoAnswerPrec, s.NoAnswerRec = ratio(noBoth, noPred), ratio(noBoth, noTrue)
	s.SearchP50, s.SearchP95 = percentile(search, 50), percentile(search, 95)
	s.AskP50, s.AskP95 = percentile(ask, 50), percentile(ask, 95)
	return s
}

func calibrate(levels map[string]Level, r CaseResult) {
	key := r.Confidence
	if r.Denied {
		key = "denied"
	}
	if key == "" {
		key = "none"
	}
	l := levels[key]
	l.Cases++
	l.Correct += b2i(r.Correct)
	l.Accuracy = float64(l.Correct) / float64(l.Cases)
	levels[key] = l
}

type mean struct {
	sum float64
	n   int
}

func (m *mean) add(v float64) { m.sum += v; m.n++ }

func (m mean) value() *float64 {
	if m.n == 0 {
		return nil
	}
	return ptr(m.sum / float64(m.n))
}

func ratio(a, b int) *float64 {
	if b == 0 {
		return nil
	}
	return ptr(float64(a) / float64(b))
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func b2f(b bool) float64 { return float64(b2i(b)) }

// percentile is the nearest-rank percentile (the smallest value with at
// least p% of the values at or below it); 0 for no values.
func percentile(values []float64, p float64) float64 {
	if len(values) == 0 {
		return 0
	}
	v := slices.Clone(values)
	sort.Float64s(v)
	i := int(math.Ceil(float64(len(v))*p/100)) - 1
	return v[max(0, min(i, len(v)-1))]
}
