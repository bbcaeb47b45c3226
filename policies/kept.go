package policies

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"
)

// DefaultKeepRevisions is how many served revisions' sources a gate keeps
// when the operator sets a folder but no count.
const DefaultKeepRevisions = 20

// DigestFile is the file of a kept revision's folder that holds its
// digest (Decision.Digest): hidden, so loading the folder as a policy
// skips it.
const DigestFile = ".wikigate-digest"

// keptRevisions writes the files of each revision the gate serves to
// dir/<revision>/ and removes the oldest beyond keep, so a recorded
// decision can be explained with the policy that made it, days after the
// folder or the bundle moved on (docs/security.md, Explaining a denial).
type keptRevisions struct {
	dir  string
	keep int
}

// keep writes p's sources; a failure is logged and never stops serving.
func (e *Engine) keep(p *prepared) {
	if e.kept == nil || len(p.sources) == 0 {
		return
	}
	if err := e.kept.write(p); err != nil {
		e.logger.Warn("policy sources not kept for explain", zap.String("revision", p.revision), zap.String("dir", e.kept.dir), zap.Error(err))
	}
}

func (k *keptRevisions) write(p *prepared) error {
	dst := filepath.Join(k.dir, p.revision)
	if !safeRevision(p.revision) {
		return fmt.Errorf("revision %q cannot name a folder", p.revision)
	}
	if raw, err := os.ReadFile(filepath.Join(dst, DigestFile)); err == nil && strings.TrimSpace(string(raw)) == p.digest {
		now := time.Now()
		return os.Chtimes(dst, now, now) // served again: the newest
	}
	tmp, err := os.MkdirTemp(k.dir, ".incoming-")
	if err != nil {
		if err := os.MkdirAll(k.dir, 0o750); err != nil {
			return err
		}
		if tmp, err = os.MkdirTemp(k.dir, ".incoming-"); err != nil {
			return err
		}
	}
	defer os.RemoveAll(tmp)
	for name, f := range p.sources {
		path := filepath.Join(tmp, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
			return err
		}
		if err := os.WriteFile(path, f.Data, 0o640); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(tmp, DigestFile), []byte(p.digest+"\n"), 0o640); err != nil {
		return err
	}
	if err := os.RemoveAll(dst); err != nil {
		return err
	}
	if err := os.Rename(tmp, dst); err != nil {
		return err
	}
	return k.prune(p.revision)
}

// prune removes the oldest kept revisions beyond keep, never current.
func (k *keptRevisions) prune(current string) error {
	keep := k.keep
	if keep <= 0 {
		keep = DefaultKeepRevisions
	}
	entries, err := os.ReadDir(k.dir)
	if err != nil {
		return err
	}
	type kept struct {
		name string
		at   time.Time
	}
	var all []kept
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		all = append(all, kept{e.Name(), info.ModTime()})
	}
	slices.SortFunc(all, func(a, b kept) int { return b.at.Compare(a.at) })
	var errs []error
	for i, r := range all {
		if i >= keep && r.name != current {
			errs = append(errs, os.RemoveAll(filepath.Join(k.dir, r.name)))
		}
	}
	return errors.Join(errs...)
}

// safeRevision: a revision names a folder only when it is one plain path
// element (a bundle's manifest revision is free text).
func safeRevision(rev string) bool {
	return rev != "" && rev != "." && rev != ".." && !strings.HasPrefix(rev, ".") &&
		!strings.ContainsAny(rev, `/\`) && fs.ValidPath(rev)
}

// FolderRevision is the revision and digest the gate gives the policy in
// dir (as a load names it: the policy files, tests left out).
func FolderRevision(dir string) (revision, digest string, err error) {
	files, _, err := readTree(dir)
	if err != nil {
		return "", "", err
	}
	return files.revision(), hashOf(files.entries()), nil
}
