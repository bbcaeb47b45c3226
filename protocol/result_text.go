package protocol

import (
	"encoding/json"
	"strconv"
)

// The text of a Result (AppendText): what MCP's tools/call shows a model
// beside structuredContent (docs/agents.md, "MCP"). The renderings append
// to b with strconv rather than fmt: they run on every call, and fmt's
// reflection was a tenth of MCP's fast path's CPU.

func appendSearchText(b []byte, r *SearchResult) []byte {
	b = strconv.AppendInt(b, int64(len(r.Hits)), 10)
	b = append(b, " of "...)
	b = strconv.AppendInt(b, int64(r.Total), 10)
	b = append(b, " matching pages:\n"...)
	for i, hit := range r.Hits {
		b = appendRef(strconv.AppendInt(b, int64(i+1), 10), ". ", hit.Title, hit.Path, hit.URL)
		if hit.Snippet != "" {
			b = append(append(append(b, "   "...), hit.Snippet...), '\n')
		}
	}
	return b
}

// appendRef writes "<sep><title> — <path> (<url>)\n", the line every
// rendering names a page with.
func appendRef(b []byte, sep, title, path, url string) []byte {
	b = append(append(b, sep...), title...)
	b = append(append(b, " — "...), path...)
	return append(append(append(b, " ("...), url...), ")\n"...)
}

func appendPagesText(b []byte, r *PageResult) []byte {
	for _, p := range r.Pages {
		b = append(append(append(b, "# "...), p.Title...), "\npath: "...)
		b = append(append(append(b, p.Path...), "\nurl: "...), p.URL...)
		b = append(append(append(b, "\n\n"...), p.Content...), "\n\n"...)
	}
	for _, e := range r.Errors {
		b = append(append(append(b, "not returned: "...), e.Path...), ": "...)
		b = append(append(append(b, e.Code...), ": "...), e.Message...)
		b = append(b, '\n')
	}
	return b
}

func appendAnswerText(b []byte, a *AnswerResult) []byte {
	if a.NoAnswerReason != nil {
		b = append(append(append(b, "No answer ("...), a.NoAnswerReason.Reason...), "): "...)
		b = append(append(b, a.NoAnswerReason.Message...), '\n')
	} else {
		b = append(append(b, a.Answer...), '\n')
	}
	b = append(append(append(b, "\nconfidence: "...), a.Confidence...), '\n')
	if len(a.Citations) > 0 {
		b = append(b, "\nSources:\n"...)
		for i, c := range a.Citations {
			b = append(strconv.AppendInt(append(b, '['), int64(i+1), 10), ']')
			b = appendRef(b, " ", c.Title, c.Path, c.URL)
		}
	}
	for _, act := range a.Actions {
		if act.Enabled {
			b = append(append(append(b, "\nYou can call "...), act.Type...), " with dedupeKey "...)
			b = append(append(b, act.DedupeKey...), " to report this.\n"...)
		}
	}
	return b
}

func appendContextText(b []byte, p *ContextPack) []byte {
	b = strconv.AppendInt(b, int64(len(p.Items)), 10)
	b = strconv.AppendInt(append(b, " passages (about "...), int64(p.TokenEstimate), 10)
	b = strconv.AppendInt(append(b, " of "...), int64(p.MaxTokens), 10)
	b = append(b, " tokens"...)
	if p.Truncated {
		b = append(b, ", truncated"...)
	}
	b = append(b, "):\n"...)
	for i, it := range p.Items {
		b = append(strconv.AppendInt(append(b, "\n["...), int64(i+1), 10), ']')
		b = appendRef(b, " ", it.Title, it.Path, it.URL)
		b = append(append(b, it.Content...), '\n')
	}
	return b
}

// feedbackBody is what the text names of a feedback receipt's body (the
// gateway renders the whole response).
type feedbackBody struct {
	Record struct {
		ID        string `json:"id"`
		Type      string `json:"type"`
		DedupeKey string `json:"dedupeKey"`
		Status    string `json:"status"`
		Count     int    `json:"count"`
	} `json:"record"`
	Created bool `json:"created"`
}

// appendFeedbackText names the record a receipt's body reports. The body
// is json.Marshal's (FeedbackReceipt); one that does not decode only
// thins the text.
func appendFeedbackText(b []byte, body []byte) []byte {
	var f feedbackBody
	_ = json.Unmarshal(body, &f)
	verb := "Merged into existing "
	if f.Created {
		verb = "Created "
	}
	b = append(append(append(b, verb...), f.Record.Type...), " record "...)
	b = append(append(append(b, f.Record.ID...), " (status "...), f.Record.Status...)
	b = strconv.AppendInt(append(b, ", reported "...), int64(f.Record.Count), 10)
	b = append(append(append(b, " times, dedupeKey "...), f.Record.DedupeKey...), ")."...)
	return b
}
