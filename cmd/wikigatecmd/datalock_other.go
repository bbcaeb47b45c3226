//go:build !unix

package wikigatecmd

import "os"

// tryLock: no flock here; a second gate on the same data directory fails
// later, on its busy ports.
func tryLock(*os.File) error { return nil }

func errLocked(error) bool { return false }
