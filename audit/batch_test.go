package audit

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// gatedWriter is a disk that writes only when let: each Write call waits
// for a token on open (nil: never waits) and is counted.
type gatedWriter struct {
	open  chan struct{}
	mu    sync.Mutex
	buf   bytes.Buffer
	calls int
}

func (g *gatedWriter) Write(p []byte) (int, error) {
	if g.open != nil {
		<-g.open
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.calls++
	return g.buf.Write(p)
}

func (g *gatedWriter) snapshot() (string, int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.buf.String(), g.calls
}

// drained: a flush has taken everything pending.
func (b *BatchWriter) drained() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.pending) == 0
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// Lines written while the disk is busy share one write call once it is
// free, in the order they were written.
func TestBatchWriterBatchesInOrder(t *testing.T) {
	disk := &gatedWriter{open: make(chan struct{})}
	b := NewBatchWriter(disk, BatchOptions{FlushDelay: time.Millisecond})
	b.Write([]byte("line 0\n"))
	waitUntil(t, "the first flush to start", b.drained)
	var want strings.Builder
	want.WriteString("line 0\n")
	for i := 1; i <= 100; i++ {
		fmt.Fprintf(&want, "line %d\n", i)
		b.Write([]byte(fmt.Sprintf("line %d\n", i)))
	}
	close(disk.open)
	b.Close()
	got, calls := disk.snapshot()
	if got != want.String() {
		t.Fatalf("file holds %q, want the 101 lines in order", got)
	}
	if calls != 2 {
		t.Errorf("%d write calls for 101 lines written while the disk was busy, want 2 (the first line, then the rest)", calls)
	}
}

// A line reaches the file without Close or Sync (the flush interval).
func TestBatchWriterFlushesWithoutClose(t *testing.T) {
	disk := &gatedWriter{}
	b := NewBatchWriter(disk, BatchOptions{})
	defer b.Close()
	b.Write([]byte("a record\n"))
	waitUntil(t, "the record in the file", func() bool { got, _ := disk.snapshot(); return got == "a record\n" })
}

// A full buffer holds writers back until the disk makes room: nothing is
// lost when it does so within MaxWait.
func TestBatchWriterBackPressureLosesNothing(t *testing.T) {
	disk := &gatedWriter{open: make(chan struct{})}
	b := NewBatchWriter(disk, BatchOptions{FlushDelay: time.Millisecond, FlushSize: 10, MaxPending: 10, MaxWait: time.Minute})
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() { b.Write([]byte("12345\n")) })
	}
	time.Sleep(20 * time.Millisecond) // writers pile up behind the busy disk
	close(disk.open)
	wg.Wait()
	b.Close()
	if got, _ := disk.snapshot(); got != strings.Repeat("12345\n", 20) || b.Lost() != 0 {
		t.Fatalf("file %q, lost %d; want 20 lines and none lost", got, b.Lost())
	}
}

// A disk that stays stuck past MaxWait: the line is given up, counted and
// reported, never silently.
func TestBatchWriterCountsWhatItGivesUp(t *testing.T) {
	disk := &gatedWriter{open: make(chan struct{})}
	var reported int
	var reportedErr error
	b := NewBatchWriter(disk, BatchOptions{FlushDelay: time.Millisecond, FlushSize: 6, MaxPending: 6, MaxWait: 10 * time.Millisecond,
		OnLoss: func(n int, err error) { reported, reportedErr = reported+n, err }})
	b.Write([]byte("first\n")) // taken by a flush that blocks
	waitUntil(t, "the disk to be busy", b.drained)
	b.Write([]byte("secnd\n")) // fills the buffer
	if n, err := b.Write([]byte("third\n")); n != 0 || err == nil {
		t.Fatalf("a write with no room after MaxWait: %d, %v; want 0 and an error", n, err)
	}
	if b.Lost() != 1 || reported != 1 || reportedErr == nil {
		t.Fatalf("lost %d, reported %d (%v); want 1 and 1 with the reason", b.Lost(), reported, reportedErr)
	}
	close(disk.open)
	b.Close()
	if got, _ := disk.snapshot(); got != "first\nsecnd\n" {
		t.Fatalf("file holds %q", got)
	}
	if _, err := b.Write([]byte("late\n")); !errors.Is(err, ErrClosed) || b.Lost() != 2 {
		t.Fatalf("write after Close: %v, lost %d; want ErrClosed and 2", err, b.Lost())
	}
}

// Records written by many goroutines at once through the chain file form
// one verifiable chain.
func TestChainFileUnderConcurrency(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	cf, err := OpenChainFile(path, BatchOptions{FlushDelay: 100 * time.Microsecond, FlushSize: 4 << 10, MaxPending: 16 << 10})
	if err != nil {
		t.Fatal(err)
	}
	enc := zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig())
	l := NewLogger(zap.New(zapcore.NewCore(enc, cf, zap.InfoLevel)), false)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 250 {
				l.Write(record())
			}
		})
	}
	wg.Wait()
	if err := cf.Close(); err != nil {
		t.Fatal(err)
	}
	// 2000 calls between the stream's start and close records.
	if rep := verifyFile(t, path); len(rep.Problems) != 0 || rep.Records != 2002 || len(rep.Heads) != 1 || rep.Count(EndClosed) != 1 {
		t.Fatalf("verify: %d records, problems %v, %d streams, ends %v; want 2002, none, 1 closed", rep.Records, rep.Problems, len(rep.Heads), rep.Ends)
	}
}

// A record given up leaves a gap that verify reports: the loss is visible
// in the file itself, not only in the counter.
func TestLostRecordIsAGapVerifyReports(t *testing.T) {
	disk := &gatedWriter{open: make(chan struct{})}
	b := NewBatchWriter(disk, BatchOptions{FlushDelay: time.Millisecond, FlushSize: 1, MaxPending: 1, MaxWait: 10 * time.Millisecond})
	chain := NewChainWriter(b, "s1", "")
	line := func(i int) []byte { return []byte(fmt.Sprintf(`{"n":%d}`+"\n", i)) }
	chain.Write(line(1))
	waitUntil(t, "the disk to be busy", b.drained)
	chain.Write(line(2)) // fills the buffer
	if _, err := chain.Write(line(3)); err == nil {
		t.Fatal("record 3 was not given up")
	}
	close(disk.open)
	chain.Write(line(4))
	b.Close()
	got, _ := disk.snapshot()
	rep, err := Verify(Input{Name: "audit.log", R: strings.NewReader(got)})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Records != 3 || len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].Msg, "seq 3 is missing") {
		t.Fatalf("verify of a log that lost record 3: %d records, problems %v", rep.Records, rep.Problems)
	}
}
