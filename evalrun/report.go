package evalrun

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// WriteTable prints the report for a terminal: one line per case, then the
// totals and the calibration.
func WriteTable(w io.Writer, r Report) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CASE\tKIND\tCALLER\tRANK\tANSWER\tCONF\tCITE P\tCITE R\tOK\tLEAKS\tSEARCH ms\tASK ms")
	for _, c := range r.Cases {
		if c.Error != "" {
			fmt.Fprintf(tw, "%s\t%s\t%s\t-\terror\t-\t-\t-\t-\t-\t-\t-\n", c.ID, c.Kind, c.Caller)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%.0f\t%.0f\n", c.ID, c.Kind, c.Caller,
			rankText(c), outcome(c), dash(c.Confidence), num(c.CitePrec), num(c.CiteRecall),
			yes(c.Correct), len(c.Leaks), c.SearchMS, c.AskMS)
	}
	fmt.Fprintln(tw)
	s := r.Summary
	fmt.Fprintf(tw, "cases\t%d (%d answerable, %d gate errors)\n", s.Cases, s.Answerable, s.Errors)
	for _, l := range [][2]string{
		{"search hit@1", num(s.Hit1)}, {"search hit@5", num(s.Hit5)}, {"search MRR", num(s.MRR)},
		{"answer rate", num(s.AnswerRate)},
		{"citation precision", num(s.CitePrec)}, {"citation recall", num(s.CiteRecall)},
		{"no-answer precision", num(s.NoAnswerPrec)}, {"no-answer recall", num(s.NoAnswerRec)},
		{"restricted leaks", fmt.Sprint(s.Leaks)},
		{"search latency", fmt.Sprintf("p50 %.0f ms, p95 %.0f ms", s.SearchP50, s.SearchP95)},
		{"ask latency", fmt.Sprintf("p50 %.0f ms, p95 %.0f ms", s.AskP50, s.AskP95)},
	} {
		fmt.Fprintf(tw, "%s\t%s\n", l[0], l[1])
	}
	levels := make([]string, 0, len(s.Calibration))
	for k := range s.Calibration {
		levels = append(levels, k)
	}
	slices.SortFunc(levels, func(a, b string) int { return levelOrder(a) - levelOrder(b) })
	for _, k := range levels {
		l := s.Calibration[k]
		fmt.Fprintf(tw, "confidence %s\t%d/%d correct (%.3f)\n", k, l.Correct, l.Cases, l.Accuracy)
	}
	for _, c := range r.Cases {
		if c.Error != "" {
			fmt.Fprintf(tw, "error in %s\t%s\n", c.ID, c.Error)
		}
		if len(c.Leaks) > 0 {
			fmt.Fprintf(tw, "leak in %s\t%s\n", c.ID, strings.Join(c.Leaks, ", "))
		}
	}
	return tw.Flush()
}

func levelOrder(l string) int {
	return slices.Index([]string{"high", "medium", "low", "denied", "none"}, l)
}

func rankText(c CaseResult) string {
	if c.Kind != KindAnswerable {
		return "-"
	}
	if c.Rank == 0 {
		return "none"
	}
	return fmt.Sprint(c.Rank)
}

func outcome(c CaseResult) string {
	switch {
	case c.Denied:
		return "denied"
	case c.Answered:
		return "answer"
	}
	return "no-answer"
}

func num(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.3f", *v)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
