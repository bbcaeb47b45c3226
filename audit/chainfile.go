package audit

import (
	"bytes"
	"io"
	"os"
)

// tailWindow bounds how much of an existing file is read to find its last
// line; an audit line is far shorter.
const tailWindow = 64 << 10

// ChainFile is a ChainWriter appending to a file through a BatchWriter:
// records are chained in the order they are written and reach the file in
// batches, one write call each (see BatchWriter for the bounds). Opening a
// file that already holds records (a restart, a second gate, a reopened
// log) starts a new stream whose first record names the hash of the file's
// last line, so the old chain and the new one stay linked.
type ChainFile struct {
	*ChainWriter
	batch *BatchWriter
	f     *os.File
}

// OpenChainFile opens (creating, mode 0600) path for appending and starts
// a new stream after its last line.
func OpenChainFile(path string, opt BatchOptions) (*ChainFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	last, partial, err := lastLine(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	if partial {
		// A line cut short (a crash mid-write) stays as it is; the new
		// stream starts on a line of its own and names it.
		if _, err := f.Write([]byte{'\n'}); err != nil {
			f.Close()
			return nil, err
		}
	}
	prev := ""
	if len(last) > 0 {
		prev = HashLine(last)
	}
	batch := NewBatchWriter(f, opt)
	return &ChainFile{ChainWriter: NewChainWriter(batch, NewStreamID(), prev), batch: batch, f: f}, nil
}

// Close writes what is pending and closes the file.
func (c *ChainFile) Close() error {
	c.batch.Close()
	return c.f.Close()
}

// Flush writes what is pending now.
func (c *ChainFile) Flush() error { return c.batch.Flush() }

// Lost is the number of records that never reached the file.
func (c *ChainFile) Lost() uint64 { return c.batch.Lost() }

// lastLine returns the file's last non-empty line and whether it lacks its
// newline.
func lastLine(f *os.File) (line []byte, partial bool, err error) {
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return nil, false, err
	}
	off := max(st.Size()-tailWindow, 0)
	buf := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
		return nil, false, err
	}
	partial = buf[len(buf)-1] != '\n'
	buf = bytes.TrimRight(buf, "\r\n")
	if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
		buf = buf[i+1:]
	}
	return buf, partial, nil
}

// Sync writes what is pending and syncs the file (zap's WriteSyncer).
func (c *ChainFile) Sync() error {
	if err := c.batch.Flush(); err != nil {
		return err
	}
	return c.f.Sync()
}
