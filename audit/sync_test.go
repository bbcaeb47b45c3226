package audit

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// syncingDisk writes at once and syncs only when let: each Sync waits for
// a token on open. It counts write and sync calls.
type syncingDisk struct {
	gatedWriter
	open   chan struct{}
	syncs  atomic.Int32
	synced atomic.Int32 // bytes covered by a finished sync
}

func (d *syncingDisk) Sync() error {
	<-d.open
	d.mu.Lock()
	d.synced.Store(int32(d.buf.Len()))
	d.mu.Unlock()
	d.syncs.Add(1)
	return nil
}

// In the durable mode a write returns only once its line was written and
// synced; without it, at once.
func TestSyncModeHoldsAWriteUntilItsBatchIsSynced(t *testing.T) {
	for _, durable := range []bool{false, true} {
		disk := &syncingDisk{open: make(chan struct{})}
		b := NewBatchWriter(disk, BatchOptions{Sync: durable})
		returned := make(chan struct{})
		go func() { b.Write([]byte("a record\n")); close(returned) }()
		select {
		case <-returned:
			if durable {
				t.Fatal("a durable write returned before its batch was synced")
			}
		case <-time.After(200 * time.Millisecond):
			if !durable {
				t.Fatal("a write without the durable mode waited for the disk")
			}
		}
		close(disk.open)
		<-returned
		if durable && disk.synced.Load() != int32(len("a record\n")) {
			t.Errorf("the durable write returned with %d bytes synced", disk.synced.Load())
		}
		b.Close()
	}
}

// Group commit through the chain: while one batch is being synced, the
// records of many callers queue behind it and share the next write and
// sync; none of them returns before its own batch was synced, and the
// chain stays in order.
func TestSyncModeGroupsRecordsThroughTheChain(t *testing.T) {
	disk := &syncingDisk{open: make(chan struct{})}
	b := NewBatchWriter(disk, BatchOptions{Sync: true})
	chain := NewChainWriter(b, "s1", "")
	first := make(chan struct{})
	go func() { chain.Write([]byte(`{"n":0}` + "\n")); close(first) }()
	waitUntil(t, "the first batch to be in its sync", func() bool { _, writes := disk.snapshot(); return writes == 1 })
	var wg sync.WaitGroup
	var early atomic.Int32
	for i := 1; i <= 50; i++ {
		wg.Go(func() {
			chain.Write([]byte(fmt.Sprintf(`{"n":%d}`+"\n", i)))
			if disk.syncs.Load() < 2 {
				early.Add(1)
			}
		})
	}
	waitUntil(t, "the 50 records to queue behind the sync", func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		return strings.Count(string(b.pending), "\n") == 50
	})
	close(disk.open)
	wg.Wait()
	<-first
	b.Close()
	got, writes := disk.snapshot()
	if early.Load() != 0 {
		t.Errorf("%d writes returned before their batch was synced", early.Load())
	}
	if writes != 2 || disk.syncs.Load() != 2 {
		t.Errorf("%d writes and %d syncs for 51 records, 50 of them queued during the first sync; want 2 and 2", writes, disk.syncs.Load())
	}
	rep, err := Verify(Input{Name: "audit.log", R: strings.NewReader(got)})
	if err != nil || rep.Records != 51 || len(rep.Problems) != 0 {
		t.Fatalf("chain: %d records, problems %v, %v", rep.Records, rep.Problems, err)
	}
}

// A durable chain file says so to the process (the gate holds its answers
// while one is open) and stops saying so once closed; its start record
// says it is durable.
func TestSyncFileIsAnnounced(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	before := SyncFilesOpen()
	cf := openAndWrite(t, path, 1, BatchOptions{Sync: true})
	if !SyncFilesOpen() {
		t.Error("no durable file open while one is")
	}
	cf.Close()
	if SyncFilesOpen() != before {
		t.Error("the durable file is still announced after Close")
	}
	if ls := lines(t, path); !strings.Contains(ls[0], `"sync":true`) || len(ls) != 3 {
		t.Errorf("durable file: %q", ls)
	}
}
