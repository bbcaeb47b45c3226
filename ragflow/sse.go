package ragflow

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
)

// errStreamTooBig stops a stream that passed MaxResponseBytes.
var errStreamTooBig = errors.New("stream over the size cap")

// cappedReader fails once more than left bytes would be read, so a stream
// (like a body) can never grow past the cap, however it is framed.
type cappedReader struct {
	r    io.Reader
	left int64
	eof  bool // the body ended: nothing is left to drain (drainRest)
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		var probe [1]byte
		n, err := c.r.Read(probe[:])
		if n > 0 {
			return 0, errStreamTooBig
		}
		c.eof = c.eof || err == io.EOF
		return 0, err
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	c.eof = c.eof || err == io.EOF
	return n, err
}

// streamState assembles a streamed answer.
type streamState struct {
	answer    strings.Builder
	thinking  bool
	reference []Chunk
	usage     wireUsage // the last usage an event reported
	done      bool
	onText    func(answer string) // hears the answer after each delta
	spare     []byte              // the bytes of the last event, for the next
	events    *wireReader         // reads every event of the stream in turn
}

// readStream reads RAGFlow's SSE (docs/backends.md, RAGFlow wire details:
// Stream). Events are "data:" lines (with or without a space) holding one
// JSON value each, normally one line per event and a blank line between
// events. The docs' pretty-printed events (a JSON value spread over several
// lines, no blank line before the next "data:") are read too: a "data:" line
// starts a new event once the current one holds a complete JSON value.
func (c *Client) readStream(cl *call, onText func(string)) (*Completion, error) {
	body := &cappedReader{r: cl.resp.Body, left: c.maxBytes}
	sc := bufio.NewScanner(body)
	lines := lineBuffers.Get().(*[]byte)
	defer lineBuffers.Put(lines)
	sc.Buffer((*lines)[:0], int(min(c.maxBytes, 1<<30))+1)
	st := &streamState{onText: onText, events: getWireReader()}
	defer putWireReader(st.events)
	var event []byte
	for !st.done && sc.Scan() {
		line := sc.Bytes()
		payload, isData := bytes.CutPrefix(line, []byte("data:"))
		switch {
		case isData:
			if len(bytes.TrimSpace(event)) > 0 && json.Valid(event) {
				if err := c.handleEvent(st, event); err != nil {
					return nil, err
				}
				event = st.closeEvent(event)
			}
			event = st.appendEventLine(event, bytes.TrimPrefix(payload, []byte(" ")))
		case len(bytes.TrimSpace(line)) == 0:
			if err := c.flushEvent(st, &event); err != nil {
				return nil, err
			}
		case isFieldLine(line):
			// comments, event:, id:, retry: carry nothing RAGFlow uses
		case event != nil:
			event = st.appendEventLine(event, line) // pretty-printed JSON
		default:
			return nil, badResponse("not an event stream")
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, errStreamTooBig) || errors.Is(err, bufio.ErrTooLong) {
			return nil, badResponse(fmt.Sprintf("stream over %d bytes", c.maxBytes))
		}
		return nil, c.transportError(cl.ctx, err)
	}
	if err := c.flushEvent(st, &event); err != nil {
		return nil, err
	}
	if !st.done {
		return nil, badResponse("stream ended before its terminator")
	}
	if !body.eof {
		// The terminator came before the body's end (its blank line or
		// the chunked encoding's last chunk still to come).
		cl.drainRest()
	}
	if st.reference == nil {
		st.reference = []Chunk{}
	}
	return &Completion{Answer: st.answer.String(), Reference: st.reference, reported: st.usage}, nil
}

// lineBuffers recycle the scanner's line buffer, 64 KiB per generation.
var lineBuffers = sync.Pool{New: func() any {
	b := make([]byte, 0, 64<<10)
	return &b
}}

// appendEventLine copies line (the scanner reuses its buffer) into the
// event; an open event is never nil, even when its first line is empty.
// A new event reuses the bytes of the last one (handleEvent copies them).
func (st *streamState) appendEventLine(event, line []byte) []byte {
	if event == nil {
		event = st.spare[:0]
		if event == nil {
			event = make([]byte, 0, len(line))
		}
	} else {
		event = append(event, '\n')
	}
	return append(event, line...)
}

// closeEvent ends the open event, keeping its bytes for the next one.
func (st *streamState) closeEvent(event []byte) []byte {
	if event != nil {
		st.spare = event[:0]
	}
	return nil
}

func (c *Client) flushEvent(st *streamState, event *[]byte) error {
	if len(bytes.TrimSpace(*event)) == 0 || st.done {
		*event = st.closeEvent(*event)
		return nil
	}
	err := c.handleEvent(st, *event)
	*event = st.closeEvent(*event)
	return err
}

// isFieldLine recognises SSE lines other than data: a comment (":...") or
// an event, id or retry field.
func isFieldLine(line []byte) bool {
	if bytes.HasPrefix(line, []byte(":")) {
		return true
	}
	for _, f := range []string{"event:", "id:", "retry:"} {
		if bytes.HasPrefix(line, []byte(f)) {
			return true
		}
	}
	return false
}

// handleEvent applies one event: the terminator ends the stream, a code !=
// 0 or an "**ERROR**" answer fails it, think markers toggle thinking, the
// final event brings the reference (and, for an empty response, the whole
// answer again), every other event appends its delta.
func (c *Client) handleEvent(st *streamState, payload []byte) error {
	r := st.events
	if r == nil { // a state built outside readStream
		r = getWireReader()
		defer putWireReader(r)
	}
	h, d, decoded, dataBad := r.readEvent(payload)
	if !decoded || h.code == nil {
		return badResponse("stream event is not an envelope")
	}
	if *h.code != 0 {
		return &Error{Kind: Rejected, HTTPStatus: 200, Code: *h.code, Detail: c.backendDetail(h.message)}
	}
	switch {
	case h.dataKind == 't':
		st.done = true
		return nil
	case isG1AuthFailure(h):
		return &Error{Kind: Rejected, HTTPStatus: 200, Detail: "authentication failed: " + c.backendDetail(h.message)}
	case h.dataKind != '{':
		return badResponse("stream event data is not an answer")
	case dataBad:
		return badResponse("stream event data is malformed")
	}
	if err := c.applyDelta(st, &d); err != nil {
		return err
	}
	st.noteUsage(d.usage)
	return nil
}

// noteUsage keeps the last usage an event reported (OpenAI-style streams
// send it once, on the last chunk).
func (st *streamState) noteUsage(w wireUsage) {
	if w != (wireUsage{}) {
		st.usage = w
	}
}

func (c *Client) applyDelta(st *streamState, d *eventData) error {
	switch {
	case d.startToThink:
		st.thinking = true
		return nil
	case d.endToThink:
		st.thinking = false
		return nil
	case st.thinking:
		return nil
	case isErrorAnswer(d.answer):
		return &Error{Kind: Rejected, HTTPStatus: 200, Detail: c.backendDetail(d.answer)}
	case d.referenceErr != nil:
		return d.referenceErr
	}
	if len(d.reference) > 0 {
		st.reference = d.reference
	}
	if d.final {
		// The final event blanks the answer, except for RAGFlow's empty
		// response, which it repeats in full (docs/backends.md, RAGFlow wire
		// details: Nothing found).
		if d.answer != "" {
			st.answer.Reset()
			st.answer.WriteString(d.answer)
		}
		return nil
	}
	st.answer.WriteString(d.answer)
	if st.onText != nil && d.answer != "" {
		st.onText(st.answer.String())
	}
	return nil
}
