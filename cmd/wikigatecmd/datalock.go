package wikigatecmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// dataDirLock is held for the life of a `wikigate run`: the open lock file
// of its data directory (the lock goes when the process does, however it
// ends, so a crash leaves nothing to clean up).
var dataDirLock *os.File

// lockFileName is the lock file in the data directory.
const lockFileName = "wikigate.lock"

// DataDirInUseError is a second gate started on a data directory a running
// gate holds: its admin socket, stores and key file are that gate's.
type DataDirInUseError struct {
	Dir string
	PID string // the holder's process id, as it wrote it ("" when unreadable)
}

func (e *DataDirInUseError) Error() string {
	holder := "another wikigate"
	if e.PID != "" {
		holder += " (pid " + e.PID + ")"
	}
	return fmt.Sprintf("%s is running on the data directory %s: stop it, or give this gate its own with WIKIGATE_DATA_DIR (and its own ports, README Quick start)", holder, e.Dir)
}

// lockDataDir takes the data directory's lock without waiting, before
// Caddy starts: Caddy's admin endpoint removes a unix socket file it finds
// and binds its own, so a second gate that got that far would cut the
// first one off from reload and metrics even though it then fails on the
// busy port.
func lockDataDir(dir string) (*os.File, error) {
	file := filepath.Join(dir, lockFileName)
	f, err := os.OpenFile(file, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", file, err)
	}
	if err := tryLock(f); err != nil {
		raw, _ := os.ReadFile(file)
		f.Close()
		if errLocked(err) {
			return nil, &DataDirInUseError{Dir: dir, PID: strings.TrimSpace(string(raw))}
		}
		return nil, fmt.Errorf("locking %s: %w", file, err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}
