package evalrun

import "fmt"

// Thresholds fail a run (exit status 1) when a figure falls short. A
// negative minimum is unset; MaxLeaks is always checked (default 0).
type Thresholds struct {
	MinHit1, MinHit5, MinMRR, MinAnswerRate float64
	MinCitePrec, MinCiteRecall              float64
	MinNoAnswerPrec, MinNoAnswerRecall      float64
	MaxLeaks                                int
}

// Unset is a minimum that is not checked.
const Unset = -1

// NoThresholds checks nothing but leaks (at most 0).
func NoThresholds() Thresholds {
	return Thresholds{Unset, Unset, Unset, Unset, Unset, Unset, Unset, Unset, 0}
}

// Check returns one line per threshold the summary misses. A figure no
// case measured (absent) misses any set minimum.
func (t Thresholds) Check(s Summary) []string {
	var out []string
	for _, m := range []struct {
		name string
		min  float64
		got  *float64
	}{
		{"hit@1", t.MinHit1, s.Hit1}, {"hit@5", t.MinHit5, s.Hit5}, {"MRR", t.MinMRR, s.MRR},
		{"answer rate", t.MinAnswerRate, s.AnswerRate},
		{"citation precision", t.MinCitePrec, s.CitePrec}, {"citation recall", t.MinCiteRecall, s.CiteRecall},
		{"no-answer precision", t.MinNoAnswerPrec, s.NoAnswerPrec}, {"no-answer recall", t.MinNoAnswerRecall, s.NoAnswerRec},
	} {
		switch {
		case m.min < 0:
		case m.got == nil:
			out = append(out, fmt.Sprintf("%s: not measured (no case it applies to), minimum %.3f", m.name, m.min))
		case *m.got < m.min:
			out = append(out, fmt.Sprintf("%s %.3f is under the minimum %.3f", m.name, *m.got, m.min))
		}
	}
	if s.Leaks > t.MaxLeaks {
		out = append(out, fmt.Sprintf("%d restricted path(s) leaked, at most %d allowed", s.Leaks, t.MaxLeaks))
	}
	return out
}
