package audit

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// tailWindow bounds how much of an existing file is read to find its last
// lines; an audit line is far shorter.
const tailWindow = 64 << 10

// ChainFile is a ChainWriter appending to a file through a BatchWriter:
// records are chained in the order they are written and reach the file in
// batches, one write call each (see BatchWriter for the bounds). Opening a
// file that already holds records (a restart, a second gate, a reopened
// log) starts a new stream whose first record names the hash of the file's
// last line, so the old chain and the new one stay linked.
//
// Every stream starts with a start record (audit_event "start": which
// stream ended the file before it, at which seq, whether with a close
// record) and a clean Close ends it with a close record (audit_event
// "close"), so `wikigate audit verify` tells a stream that was closed from
// one whose process died (kill -9, a crash, power loss), whose last
// records may never have reached the file.
type ChainFile struct {
	*ChainWriter
	batch *BatchWriter
	f     *os.File
	sync  bool
	once  sync.Once
	// anchor publishes the head (Anchor); nil when nothing publishes it.
	anchor *anchor
}

// Stream events: the first and the last record of a stream.
const (
	EventStart = "start"
	EventClose = "close"
)

// streamEvent is a start or close record, shaped like a zap JSON line.
type streamEvent struct {
	Level      string  `json:"level"`
	TS         float64 `json:"ts"`
	Logger     string  `json:"logger"`
	Msg        string  `json:"msg"`
	Event      string  `json:"audit_event"`
	Sync       bool    `json:"sync,omitempty"`
	PrevStream string  `json:"prev_stream,omitempty"`
	PrevSeq    uint64  `json:"prev_seq,omitempty"`
	PrevClosed *bool   `json:"prev_closed,omitempty"`
	PrevCut    bool    `json:"prev_cut,omitempty"`
}

// eventLogger names the writer in its own records.
const eventLogger = "wikigate_audit_file"

// syncFiles counts the chain files open in the durable mode.
var syncFiles atomic.Int64

// SyncFilesOpen says whether a chain file in the durable mode is open in
// this process: the gate then holds each answer until the call's record
// has landed (see BatchOptions.Sync).
func SyncFilesOpen() bool { return syncFiles.Load() > 0 }

// OpenChainFile opens (creating, mode 0600) path for appending and starts
// a new stream after its last line with a start record.
func OpenChainFile(path string, opt BatchOptions) (*ChainFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	t, err := readTail(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	if t.partial {
		// A line cut short (a crash mid-write) stays as it is; the new
		// stream starts on a line of its own and names it.
		if _, err := f.Write([]byte{'\n'}); err != nil {
			f.Close()
			return nil, err
		}
	}
	prev := ""
	if len(t.last) > 0 {
		prev = HashLine(t.last)
	}
	batch := NewBatchWriter(f, opt)
	c := &ChainFile{ChainWriter: NewChainWriter(batch, NewStreamID(), prev), batch: batch, f: f, sync: opt.Sync}
	if err := c.writeEvent(t.startEvent(opt.Sync)); err != nil {
		batch.Close()
		f.Close()
		return nil, err
	}
	if opt.Sync {
		syncFiles.Add(1)
	}
	return c, nil
}

func (c *ChainFile) writeEvent(ev streamEvent) error {
	ev.Level, ev.TS, ev.Logger = "info", float64(time.Now().UnixMicro())/1e6, eventLogger
	line, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	_, err = c.Write(append(line, '\n'))
	return err
}

// Close ends the stream with its close record, writes what is pending and
// closes the file.
func (c *ChainFile) Close() error {
	var err error
	c.once.Do(func() {
		c.anchor.closing()
		werr := c.writeEvent(streamEvent{Msg: "audit stream closed", Event: EventClose})
		c.batch.Close()
		if c.sync {
			syncFiles.Add(-1)
		}
		err = c.f.Sync()
		if cerr := c.f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = werr
		}
		if err == nil {
			c.anchor.final(c.Head())
		}
	})
	return err
}

// Flush writes what is pending now.
func (c *ChainFile) Flush() error { return c.batch.Flush() }

// Lost is the number of records that never reached the file.
func (c *ChainFile) Lost() uint64 { return c.batch.Lost() }

// tail is what the end of an existing file says about the stream before.
type tail struct {
	last    []byte // the last non-empty line
	partial bool   // it lacks its newline (cut short)
	found   bool   // a chained record was found near the end
	stream  string // the last chained record's stream, seq and event
	seq     uint64
	event   string
}

// startEvent is the start record of a stream opened after t.
func (t tail) startEvent(sync bool) streamEvent {
	ev := streamEvent{Msg: "audit stream started", Event: EventStart, Sync: sync, PrevCut: t.partial}
	if t.found {
		closed := t.event == EventClose
		ev.PrevStream, ev.PrevSeq, ev.PrevClosed = t.stream, t.seq, &closed
	}
	return ev
}

// readTail reads the file's last lines: the last one, and the last
// chained record (a cut line is skipped to find it).
func readTail(f *os.File) (tail, error) {
	var t tail
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return t, err
	}
	off := max(st.Size()-tailWindow, 0)
	buf := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
		return t, err
	}
	t.partial = buf[len(buf)-1] != '\n'
	rest := bytes.TrimRight(buf, "\r\n")
	for len(rest) > 0 {
		line := rest
		i := bytes.LastIndexByte(rest, '\n')
		if i >= 0 {
			line, rest = rest[i+1:], bytes.TrimRight(rest[:i], "\r\n")
		} else {
			rest = nil
		}
		if t.last == nil {
			t.last = line
		}
		if f, ok := chainOf(line); ok {
			t.found, t.stream, t.seq, t.event = true, f.Stream, *f.Seq, f.Event
			break
		}
	}
	return t, nil
}

// Sync writes what is pending and syncs the file (zap's WriteSyncer).
func (c *ChainFile) Sync() error {
	if err := c.batch.Flush(); err != nil {
		return err
	}
	return c.f.Sync()
}
