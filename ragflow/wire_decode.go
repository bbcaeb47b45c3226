package ragflow

import (
	"github.com/go-json-experiment/json/jsontext"

	"github.com/wikigate/wikigate/backend"
)

// envelopeHead is what the one-pass reader reads of any envelope
// (docs/backends.md, RAGFlow wire details: Envelope): the code, the message
// and the kind of its data ('t' for true, 'f' for false, '{' for an object, 0
// when there is none).
type envelopeHead struct {
	code     *int
	message  string
	dataKind jsontext.Kind
}

// head is h as the shared envelope check reads it (backend.CheckRAGFlow).
func (h envelopeHead) head() backend.RAGFlowHead {
	return backend.RAGFlowHead{Code: h.code, Message: h.message, DataKind: h.dataKind}
}

// envelopeFields are envelope's member names.
var envelopeFields = []string{"code", "message", "data"}

// readEnvelope reads a whole body (r.src) as an envelope, handing its data
// (each time it occurs: the last one counts) to readData, which must read
// the value. decoded is false when encoding/json would have refused the
// envelope itself; dataBad is set when the last data held a value of a
// type its field cannot hold. err is a syntax error.
func (r *wireReader) readEnvelope(readData func(kind jsontext.Kind) error) (h envelopeHead, decoded, dataBad bool, err error) {
	return r.readEnvelopeOf(r.src.Bytes(), readData)
}

// readEnvelopeOf is readEnvelope of body, which the scanner copies (the
// strings read share that copy), so body may be reused once it returns.
func (r *wireReader) readEnvelopeOf(body []byte, readData func(kind jsontext.Kind) error) (h envelopeHead, decoded, dataBad bool, err error) {
	r.s.Init(body)
	r.mismatch = false
	switch r.kind() {
	case '{':
		err = r.members(func(name []byte) error {
			switch field(name, envelopeFields) {
			case 0:
				return r.readIntPtr(&h.code)
			case 1:
				return r.readString(&h.message)
			case 2:
				h.dataKind = r.kind()
				outer := r.mismatch
				r.mismatch = false
				err := readData(h.dataKind)
				dataBad, r.mismatch = r.mismatch, outer
				return err
			}
			return r.skipValue()
		})
	case 'n':
		err = r.skipNull()
	default:
		err = r.wrongType()
	}
	if err == nil {
		err = r.end()
	}
	return h, err == nil && !r.mismatch, dataBad, err
}

// retrievalData is the data of a retrieval response.
type retrievalData struct {
	chunks []Chunk
	total  int
}

var retrievalFields = []string{"chunks", "total"}

// readRetrieval reads a retrieval response body (r.src) in one pass.
func (r *wireReader) readRetrieval() (h envelopeHead, d retrievalData, decoded, dataBad bool) {
	h, decoded, dataBad, _ = r.readEnvelope(func(kind jsontext.Kind) error {
		d = retrievalData{}
		if kind != '{' {
			return r.skipValue()
		}
		return r.members(func(name []byte) error {
			switch field(name, retrievalFields) {
			case 0:
				return r.readChunks(&d.chunks)
			case 1:
				return r.readInt(&d.total)
			}
			return r.skipValue()
		})
	})
	return h, d, decoded, dataBad
}

// readChunks reads a []Chunk field: null sets it to nil, [] is empty.
func (r *wireReader) readChunks(dst *[]Chunk) error {
	switch r.kind() {
	case '[':
		list := []Chunk{}
		err := r.elements(func() error {
			c, err := r.readChunk()
			list = append(list, c)
			return err
		})
		*dst = list
		return err
	case 'n':
		*dst = nil
		return r.skipNull()
	}
	return r.wrongType()
}

// chunkFields are wireChunk's member names, in the order readChunk reads.
var chunkFields = []string{"id", "content", "document_id", "document_name", "document_keyword", "dataset_id", "kb_id",
	"similarity", "vector_similarity", "term_similarity", "document_metadata", "positions"}

// readChunk reads one chunk as Chunk.UnmarshalJSON does: null is the zero
// chunk, anything but an object a mismatch. It reads the members itself
// (no closure for members), straight into the Chunk: a score is its number,
// or 0 after a null, as wireChunk's *float64 ends up through orZero; a
// score of the wrong type fails the decode either way.
func (r *wireReader) readChunk() (c Chunk, err error) {
	switch r.kind() {
	case '{':
	case 'n':
		return Chunk{}, r.skipNull()
	default:
		return Chunk{}, r.wrongType()
	}
	var keyword, kbID string
	strs := [...]*string{&c.ID, &c.Content, &c.DocumentID, &c.DocumentName, &keyword, &c.DatasetID, &kbID}
	scores := [...]*float64{&c.Similarity, &c.VectorSimilarity, &c.TermSimilarity}
	s := &r.s
	if err := s.Open(); err != nil {
		return c, err
	}
	for more := s.First('}'); more; {
		name, err := s.Key()
		if err != nil {
			return c, err
		}
		switch i := field(name, chunkFields); {
		case i < 0:
			err = r.skipValue()
		case i < len(strs):
			err = r.readString(strs[i])
		case i < len(strs)+len(scores):
			err = r.readScore(scores[i-len(strs)])
		case chunkFields[i] == "document_metadata":
			err = r.readMap(&c.Metadata)
		default:
			c.Positions, err = r.readAny()
		}
		if err != nil {
			return c, err
		}
		if more, err = s.Next('}'); err != nil {
			return c, err
		}
	}
	c.DocumentName = firstNonEmpty(c.DocumentName, keyword)
	c.DatasetID = firstNonEmpty(c.DatasetID, kbID)
	return c, nil
}

// eventData is the data of one SSE event (completionData, read in one
// pass). The reference is read with it; a malformed one is only an error
// where the stream takes the reference (applyDelta), as before.
type eventData struct {
	answer                          string
	final, startToThink, endToThink bool
	reference                       []Chunk
	referenceErr                    error
	usage                           wireUsage
}

var eventDataFields = []string{"answer", "reference", "final", "start_to_think", "end_to_think", "usage"}

// readEvent reads one SSE event's JSON, payload, in one pass.
func (r *wireReader) readEvent(payload []byte) (h envelopeHead, d eventData, decoded, dataBad bool) {
	h, decoded, dataBad, _ = r.readEnvelopeOf(payload, func(kind jsontext.Kind) error {
		d = eventData{}
		if kind != '{' {
			return r.skipValue()
		}
		return r.members(func(name []byte) error {
			switch field(name, eventDataFields) {
			case 0:
				return r.readString(&d.answer)
			case 1:
				return r.readReference(&d)
			case 2:
				return r.readBool(&d.final)
			case 3:
				return r.readBool(&d.startToThink)
			case 4:
				return r.readBool(&d.endToThink)
			case 5:
				return r.readUsage(&d.usage)
			}
			return r.skipValue()
		})
	})
	return h, d, decoded, dataBad
}

var usageFields = []string{"prompt_tokens", "completion_tokens"}

// readUsage reads a usage member as usageFromJSON does: a usage that
// would not decode is none, and never the event's mismatch.
func (r *wireReader) readUsage(dst *wireUsage) error {
	*dst = wireUsage{}
	outer := r.mismatch
	r.mismatch = false
	defer func() { r.mismatch = outer }()
	var w wireUsage
	var err error
	switch r.kind() {
	case '{':
		err = r.members(func(name []byte) error {
			switch field(name, usageFields) {
			case 0:
				return r.readIntPtr(&w.PromptTokens)
			case 1:
				return r.readIntPtr(&w.CompletionTokens)
			}
			return r.skipValue()
		})
	case 'n':
		err = r.skipNull()
	default:
		err = r.wrongType()
	}
	if err == nil && !r.mismatch {
		*dst = w
	}
	return err
}

var referenceFields = []string{"chunks"}

// readReference reads a completion's reference as referenceChunks does:
// {"chunks": [...]}, a bare list, or null for none. A mismatch inside is
// the reference's error, not the event's.
func (r *wireReader) readReference(d *eventData) error {
	d.reference, d.referenceErr = nil, nil
	outer := r.mismatch
	r.mismatch = false
	defer func() { r.mismatch = outer }()
	switch r.kind() {
	case 'n':
		return r.skipNull()
	case '[':
		err := r.readChunks(&d.reference)
		if r.mismatch {
			d.referenceErr = badResponse("reference is not a chunk list")
		}
		return err
	case '{':
		err := r.members(func(name []byte) error {
			if field(name, referenceFields) == 0 {
				return r.readChunks(&d.reference)
			}
			return r.skipValue()
		})
		if r.mismatch {
			d.referenceErr = badResponse("reference chunks are malformed")
		}
		return err
	}
	d.referenceErr = badResponse("reference is not an object")
	return r.skipValue()
}
