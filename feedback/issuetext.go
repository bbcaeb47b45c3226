package feedback

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/wikigate/wikigate/dedupe"
)

const maxTitleRunes = 100

// issueTitle is the record's title, or the event type and the start of the
// question on one line.
func issueTitle(rec Record) string {
	title := strings.Join(strings.Fields(rec.Title), " ")
	if title == "" {
		title = "[" + rec.EventType + "] " + strings.Join(strings.Fields(rec.Question), " ")
	}
	return truncateRunes(title, maxTitleRunes)
}

// issueBody describes the knowledge gap: question, normalized scope,
// citations, dedupe key. Everything a caller typed goes inside code fences,
// so it cannot @-mention people, close issues or inject markup. Caller
// credentials never reach the store, so they cannot reach the issue.
func issueBody(rec Record) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Reported through wikigate `%s`.\n\n### Question\n\n", rec.Tool)
	b.WriteString(fenced(rec.Question))
	b.WriteString("\n### Details\n\n")
	b.WriteString(fenced(detailLines(rec)))
	if len(rec.Comments) > 0 {
		b.WriteString("\n### Comments\n\n")
		for _, c := range rec.Comments {
			b.WriteString(fenced(c))
		}
	}
	fmt.Fprintf(&b, "\n<!-- wikigate-dedupe-key: %s -->\n", rec.DedupeKey)
	if rec.ID != "" {
		b.WriteString(recordMarker(rec.ID) + "\n")
	}
	return b.String()
}

func detailLines(rec Record) string {
	first := Caller{At: rec.FirstSeenAt}
	if len(rec.Callers) > 0 {
		first = rec.Callers[0]
	}
	rows := [][2]string{
		{"event type", rec.EventType},
		{"projects", listOrNone(rec.Scope.Projects)},
		{"paths", listOrNone(rec.Scope.Paths)},
		{"version", orNone(rec.Scope.Version)},
		{"working docs", strconv.FormatBool(rec.Scope.IncludeWorkingDocs)},
		{"citations", listOrNone(rec.CitationPaths)},
		{"first seen", callerLine(first)},
		{"occurrences", strconv.Itoa(rec.Count)},
		{"dedupe key", rec.DedupeKey},
	}
	if r := rec.Ratings; r != nil {
		rows = append(rows[:len(rows)-1], [2]string{"ratings", fmt.Sprintf("%d helpful, %d not helpful", r.Helpful, r.NotHelpful)}, rows[len(rows)-1])
	}
	return table(rows)
}

// commentBody reports one repeat: the count so far and who saw it when.
func commentBody(rec Record, occ Caller) string {
	rows := [][2]string{
		{"occurrences", strconv.Itoa(rec.Count)},
		{"caller", callerLine(occ)},
	}
	if occ.Rating != "" {
		rows = append(rows, [2]string{"rating", strings.ReplaceAll(occ.Rating, "_", " ")})
	}
	return fmt.Sprintf("Seen again (occurrence %d).\n\n%s", rec.Count, fenced(table(rows)))
}

func callerLine(c Caller) string {
	who := strings.TrimSpace(c.Type + " " + c.ID)
	return strings.TrimSpace(who + " at " + c.At.UTC().Format(time.RFC3339))
}

func table(rows [][2]string) string {
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "%-13s %s\n", r[0]+":", r[1])
	}
	return b.String()
}

// fenced wraps text in a code fence longer than any backtick run inside it,
// so the text cannot end the fence early.
func fenced(text string) string {
	longest, run := 0, 0
	for _, r := range text {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	return fence + "text\n" + strings.TrimRight(text, "\n") + "\n" + fence + "\n"
}

// listOrNone renders a list sorted and without duplicates, as the dedupe
// key sees it.
func listOrNone(items []string) string {
	s := dedupe.SortedUnique(items)
	if len(s) == 0 {
		return "(none)"
	}
	return strings.Join(s, ", ")
}

func orNone(v string) string {
	if v == "" {
		return "(none)"
	}
	return v
}

func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
