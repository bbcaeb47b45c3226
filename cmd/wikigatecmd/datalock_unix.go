//go:build unix

package wikigatecmd

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes an exclusive flock on f without waiting. flock locks
// belong to the open file, so a second open in the same process is refused
// too (which the tests rely on).
func tryLock(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}

func errLocked(err error) bool { return errors.Is(err, syscall.EWOULDBLOCK) }
