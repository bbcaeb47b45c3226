package audit

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"strconv"
	"sync"
)

// ChainWriter makes the audit log tamper-evident (hash chain). It sits
// between the log encoder and the file: each JSON line it is given gets
// the fields "seq" (1, 2, ... in this stream), "stream" (this writer's id)
// and "prev_hash" (the SHA-256, hex, of the previous line it wrote) spliced
// in before the closing brace. A record's hash is the SHA-256 of its line
// exactly as written (without the newline): the bytes the encoder produced
// plus the splice, so the write path never encodes JSON again and the
// verifier needs no canonical form beyond the bytes themselves.
//
// Writes are serialized under one lock, so the order of the chain is the
// order of the lines in the file.
type ChainWriter struct {
	mu     sync.Mutex
	w      io.Writer
	stream string
	seq    uint64
	prev   []byte // hex; reused, so chaining a line allocates nothing
	buf    []byte
}

// NewChainWriter starts a chain named stream on w. prev is the hash of the
// line that precedes the chain (the old chain's head, "" when unknown): the
// first record names it, so a verifier can tie the two chains together.
func NewChainWriter(w io.Writer, stream, prev string) *ChainWriter {
	return &ChainWriter{w: w, stream: stream, prev: []byte(prev)}
}

// NewStreamID is a random id per process (and per file it opens), so the
// records of several gates or restarts appending to one file keep their
// chains apart.
func NewStreamID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Stream is the chain's id.
func (c *ChainWriter) Stream() string { return c.stream }

// Write chains every line of p (zap hands over one entry per call). A line
// that is not a JSON object is written unchanged and left out of the chain.
// Over a writer that queues (BatchWriter) the lines are queued under the
// chain's lock, which keeps the file in chain order, and the wait for them
// to land (the durable mode) happens outside it, so callers waiting on one
// sync do not keep others from joining the next batch.
func (c *ChainWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	c.buf = c.buf[:0]
	rest := p
	for len(rest) > 0 {
		line, tail, found := bytes.Cut(rest, []byte{'\n'})
		rest = tail
		c.buf = c.appendLine(c.buf, line)
		if found {
			c.buf = append(c.buf, '\n')
		}
	}
	q, queues := c.w.(queuer)
	if !queues {
		_, err := c.w.Write(c.buf)
		c.mu.Unlock()
		if err != nil {
			return 0, err
		}
		return len(p), nil
	}
	t, err := q.Queue(c.buf)
	c.mu.Unlock()
	if err == nil {
		err = q.Await(t)
	}
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// queuer queues a write and tells when it landed (BatchWriter).
type queuer interface {
	Queue(p []byte) (Ticket, error)
	Await(t Ticket) error
}

// appendLine appends line, chained when it is a JSON object, and advances
// the chain.
func (c *ChainWriter) appendLine(b, line []byte) []byte {
	body := bytes.TrimRight(line, " \r\t")
	if len(body) < 2 || body[0] != '{' || body[len(body)-1] != '}' {
		return append(b, line...)
	}
	start := len(b)
	b = append(b, body[:len(body)-1]...)
	if len(bytes.TrimSpace(body[1:len(body)-1])) > 0 {
		b = append(b, ',')
	}
	c.seq++
	b = append(b, `"seq":`...)
	b = strconv.AppendUint(b, c.seq, 10)
	b = append(b, `,"stream":"`...)
	b = append(b, c.stream...)
	b = append(b, `","prev_hash":"`...)
	b = append(b, c.prev...)
	b = append(b, `"}`...)
	sum := sha256.Sum256(b[start:])
	c.prev = hex.AppendEncode(c.prev[:0], sum[:])
	return b
}

// HashLine is a record's hash: SHA-256, hex, of its line as written,
// without the line ending.
func HashLine(line []byte) string {
	sum := sha256.Sum256(bytes.TrimRight(line, "\r\n"))
	return hex.EncodeToString(sum[:])
}
