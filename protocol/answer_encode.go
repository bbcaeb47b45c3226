package protocol

import "strconv"

// An answer is written on every ask; encoding/json's reflection over it
// was about 4% of the gate's CPU per ask under bench C. AppendJSON writes
// the same bytes by hand (held to encoding/json by
// TestAnswerResultAppendJSONIsEncodingJSON and FuzzAnswerResultAppendJSON),
// with the string and float writers of SearchResult.AppendJSON.

// AppendJSON appends r as encoding/json encodes it (json.Marshal when
// escapeHTML, an Encoder with SetEscapeHTML(false) otherwise), without the
// Encoder's trailing newline. A NaN or infinite score is
// ErrUnsupportedFloat, as encoding/json refuses it.
func (r *AnswerResult) AppendJSON(dst []byte, escapeHTML bool) ([]byte, error) {
	var err error
	dst = AppendJSONString(append(dst, `{"answer":`...), r.Answer, escapeHTML)
	dst = AppendJSONString(append(dst, `,"summary":`...), r.Summary, escapeHTML)
	dst = appendCitations(append(dst, `,"citations":`...), r.Citations, escapeHTML)
	dst = AppendJSONString(append(dst, `,"confidence":`...), r.Confidence, escapeHTML)
	if dst, err = r.Grounding.appendJSON(append(dst, `,"grounding":`...), escapeHTML); err != nil {
		return dst, err
	}
	dst = append(dst, `,"noAnswerReason":`...)
	if n := r.NoAnswerReason; n == nil {
		dst = append(dst, "null"...)
	} else {
		dst = AppendJSONString(append(dst, `{"code":`...), string(n.Code), escapeHTML)
		dst = AppendJSONString(append(dst, `,"reason":`...), n.Reason, escapeHTML)
		dst = AppendJSONString(append(dst, `,"message":`...), n.Message, escapeHTML)
		dst = append(dst, '}')
	}
	if dst, err = appendRelatedPages(append(dst, `,"relatedPages":`...), r.RelatedPages, escapeHTML); err != nil {
		return dst, err
	}
	dst = appendActions(append(dst, `,"actions":`...), r.Actions, escapeHTML)
	if len(r.CitationSummary) > 0 {
		dst = appendCitations(append(dst, `,"citationSummary":`...), r.CitationSummary, escapeHTML)
	}
	dst = r.Audit.appendJSON(append(dst, `,"audit":`...), escapeHTML)
	return append(dst, '}'), nil
}

func appendCitations(dst []byte, list []Citation, escapeHTML bool) []byte {
	dst, _ = appendList(dst, list, func(dst []byte, c *Citation) ([]byte, error) {
		dst = AppendJSONString(append(dst, `{"path":`...), c.Path, escapeHTML)
		dst = AppendJSONString(append(dst, `,"url":`...), c.URL, escapeHTML)
		dst = AppendJSONString(append(dst, `,"title":`...), c.Title, escapeHTML)
		dst = AppendJSONString(append(dst, `,"anchor":`...), c.Anchor, escapeHTML)
		dst = AppendJSONString(append(dst, `,"chunkId":`...), c.ChunkID, escapeHTML)
		dst = AppendJSONString(append(dst, `,"sourceProject":`...), c.SourceProject, escapeHTML)
		dst = AppendJSONString(append(dst, `,"version":`...), c.Version, escapeHTML)
		return append(dst, '}'), nil
	})
	return dst
}

func (g *Grounding) appendJSON(dst []byte, escapeHTML bool) ([]byte, error) {
	var err error
	dst = AppendJSONString(append(dst, `{"status":`...), g.Status, escapeHTML)
	dst = strconv.AppendInt(append(dst, `,"citedSentences":`...), int64(g.CitedSentences), 10)
	dst = strconv.AppendInt(append(dst, `,"sentences":`...), int64(g.Sentences), 10)
	dst = strconv.AppendInt(append(dst, `,"droppedSentences":`...), int64(g.DroppedSentences), 10)
	if dst, err = appendJSONFloat(append(dst, `,"supported":`...), g.Supported); err != nil {
		return dst, err
	}
	dst = strconv.AppendInt(append(dst, `,"sources":`...), int64(g.Sources), 10)
	if dst, err = appendJSONFloat(append(dst, `,"topScore":`...), g.TopScore); err != nil {
		return dst, err
	}
	dst, err = appendList(append(dst, `,"citations":`...), g.Citations, func(dst []byte, c *CitationGrounding) ([]byte, error) {
		dst = strconv.AppendInt(append(dst, `{"ref":`...), int64(c.Ref), 10)
		dst = AppendJSONString(append(dst, `,"chunkId":`...), c.ChunkID, escapeHTML)
		dst = strconv.AppendInt(append(dst, `,"sentences":`...), int64(c.Sentences), 10)
		dst, err := appendJSONFloat(append(dst, `,"support":`...), c.Support)
		dst = strconv.AppendInt(append(dst, `,"gateCited":`...), int64(c.GateCited), 10)
		return append(dst, '}'), err
	})
	return append(dst, '}'), err
}

func appendRelatedPages(dst []byte, list []RelatedPage, escapeHTML bool) ([]byte, error) {
	return appendList(dst, list, func(dst []byte, p *RelatedPage) ([]byte, error) {
		dst = AppendJSONString(append(dst, `{"path":`...), p.Path, escapeHTML)
		dst = AppendJSONString(append(dst, `,"url":`...), p.URL, escapeHTML)
		dst = AppendJSONString(append(dst, `,"title":`...), p.Title, escapeHTML)
		dst = AppendJSONString(append(dst, `,"sourceProject":`...), p.SourceProject, escapeHTML)
		dst = AppendJSONString(append(dst, `,"version":`...), p.Version, escapeHTML)
		dst, err := appendJSONFloat(append(dst, `,"score":`...), p.Score)
		return append(dst, '}'), err
	})
}

func appendActions(dst []byte, list []Action, escapeHTML bool) []byte {
	dst, _ = appendList(dst, list, func(dst []byte, a *Action) ([]byte, error) {
		dst = AppendJSONString(append(dst, `{"type":`...), a.Type, escapeHTML)
		dst = strconv.AppendBool(append(dst, `,"enabled":`...), a.Enabled)
		dst = AppendJSONString(append(dst, `,"dedupeKey":`...), a.DedupeKey, escapeHTML)
		if a.Endpoint != "" {
			dst = AppendJSONString(append(dst, `,"endpoint":`...), a.Endpoint, escapeHTML)
		}
		return append(dst, '}'), nil
	})
	return dst
}
