package identity

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// keyFile is the on-disk JSON document.
type keyFile struct {
	Keys []KeyRecord `json:"keys"`
}

// refresh re-reads the file when it changed since the last read. Unless
// forced it stats at most once per keyStoreStatPeriod. A file that fails to
// parse keeps the last good keys (the CLI always writes whole files, so a
// bad one is a hand edit in progress). Callers hold s.mu.
func (s *KeyStore) refresh(force bool) {
	if !force && time.Since(s.lastStat) < keyStoreStatPeriod {
		return
	}
	s.lastStat = time.Now()
	info, err := os.Stat(s.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		s.records, s.loaded = nil, nil
	case err != nil:
		return
	case s.loaded == nil || fileChanged(s.loaded, info):
		_ = s.reload()
	}
}

// fileChanged compares identity (inode: the writer renames a new file into
// place), size and mtime.
func fileChanged(old, cur os.FileInfo) bool {
	return !os.SameFile(old, cur) || old.Size() != cur.Size() || !old.ModTime().Equal(cur.ModTime())
}

// reload reads the file. Content and FileInfo come from the same open file,
// so a concurrent rename cannot pair old content with new metadata. Callers
// hold s.mu (or own s exclusively).
func (s *KeyStore) reload() error {
	f, err := os.Open(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		s.records, s.loaded = nil, nil
		return nil
	}
	if err != nil {
		return fmt.Errorf("opening api key file: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return fmt.Errorf("reading api key file: %w", err)
	}
	data, err := io.ReadAll(io.LimitReader(f, 64<<20))
	if err != nil {
		return fmt.Errorf("reading api key file: %w", err)
	}
	records, err := decodeKeyFile(data)
	if err != nil {
		return fmt.Errorf("parsing api key file %s: %w", s.path, err)
	}
	s.records, s.loaded = records, info
	return nil
}

func decodeKeyFile(data []byte) ([]KeyRecord, error) {
	var doc keyFile
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	seen := make(map[string]bool, len(doc.Keys))
	for i, r := range doc.Keys {
		if !validPrefix(r.Prefix) || len(r.Hash) != sha256HexLen {
			return nil, fmt.Errorf("key %d has a malformed prefix or hash", i)
		}
		if seen[r.Prefix] {
			return nil, fmt.Errorf("prefix %q appears twice", r.Prefix)
		}
		seen[r.Prefix] = true
	}
	return doc.Keys, nil
}

// save writes records atomically (temp file in the same directory, fsync,
// rename) with mode 0600, then adopts them as the current state. Callers
// hold s.mu.
func (s *KeyStore) save(records []KeyRecord) error {
	data, err := json.MarshalIndent(keyFile{Keys: records}, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding api key file: %w", err)
	}
	info, err := writeFileAtomic(s.path, append(data, '\n'))
	if err != nil {
		return fmt.Errorf("writing api key file: %w", err)
	}
	s.records, s.loaded, s.lastStat = records, info, time.Now()
	return nil
}

// writeFileAtomic replaces path with data so readers see the old file or
// the new one, never a mix. It returns the new file's FileInfo.
func writeFileAtomic(path string, data []byte) (os.FileInfo, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*") // created 0600
	if err != nil {
		return nil, err
	}
	committed := false
	defer func() {
		if !committed {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return nil, err
	}
	if err := tmp.Sync(); err != nil {
		return nil, err
	}
	info, err := tmp.Stat()
	if err != nil {
		return nil, err
	}
	if err := tmp.Close(); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return nil, err
	}
	committed = true
	return info, nil
}
