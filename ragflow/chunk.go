package ragflow

import (
	"encoding/json"
)

// Chunk is one retrieved chunk, from /api/v1/retrieval or from a
// completion's reference. It marshals in RAGFlow's wire shape, so test
// inputs and fixtures read the same.
type Chunk struct {
	ID               string  `json:"id"`
	Content          string  `json:"content"`
	DocumentID       string  `json:"document_id"`
	DocumentName     string  `json:"document_name"`
	DatasetID        string  `json:"dataset_id"`
	Similarity       float64 `json:"similarity"`
	VectorSimilarity float64 `json:"vector_similarity"`
	TermSimilarity   float64 `json:"term_similarity"`
	// Metadata is the chunk's document_metadata (G2, when asked for with
	// reference_metadata): path, url, title, project, version, status under
	// the citation metadata of every document (docs/backends.md, Write side).
	// Nil when RAGFlow sent none, which leaves the chunk without a path: the
	// scope check drops it.
	Metadata  map[string]any `json:"document_metadata"`
	Positions any            `json:"positions"`
}

// wireChunk accepts every spelling the contract shows: retrieval's
// document_keyword and the reference's document_name, the stale kb_id of
// the v0.24 docs, and null scores (G2 turns NaN into null).
type wireChunk struct {
	ID               string         `json:"id"`
	Content          string         `json:"content"`
	DocumentID       string         `json:"document_id"`
	DocumentName     string         `json:"document_name"`
	DocumentKeyword  string         `json:"document_keyword"`
	DatasetID        string         `json:"dataset_id"`
	KBID             string         `json:"kb_id"`
	Similarity       *float64       `json:"similarity"`
	VectorSimilarity *float64       `json:"vector_similarity"`
	TermSimilarity   *float64       `json:"term_similarity"`
	Metadata         map[string]any `json:"document_metadata"`
	Positions        any            `json:"positions"`
}

// UnmarshalJSON reads a chunk in any of RAGFlow's shapes (see wireChunk).
func (c *Chunk) UnmarshalJSON(b []byte) error {
	var w wireChunk
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*c = w.chunk()
	return nil
}

// chunk is the Chunk w spells.
func (w *wireChunk) chunk() Chunk {
	return Chunk{
		ID:               w.ID,
		Content:          w.Content,
		DocumentID:       w.DocumentID,
		DocumentName:     firstNonEmpty(w.DocumentName, w.DocumentKeyword),
		DatasetID:        firstNonEmpty(w.DatasetID, w.KBID),
		Similarity:       orZero(w.Similarity),
		VectorSimilarity: orZero(w.VectorSimilarity),
		TermSimilarity:   orZero(w.TermSimilarity),
		Metadata:         w.Metadata,
		Positions:        w.Positions,
	}
}

// MetaString returns the document metadata field key when it is a string,
// else "": a number or list where a path belongs is no path at all.
func (c *Chunk) MetaString(key string) string {
	s, _ := c.Metadata[key].(string)
	return s
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func orZero(f *float64) float64 {
	if f == nil {
		return 0
	}
	return *f
}
