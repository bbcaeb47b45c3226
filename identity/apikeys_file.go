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

	"go.uber.org/zap"
)

// keyFile is the on-disk JSON document.
type keyFile struct {
	Keys []KeyRecord `json:"keys"`
}

// refresh re-reads the file when it changed since the last read. Unless
// forced it stats at most once per keyStoreStatPeriod. A file that cannot be
// read or parsed makes the store unusable (see KeyStore) until a readable
// version replaces it. Callers hold s.mu.
func (s *KeyStore) refresh(force bool) {
	if !force && time.Since(s.lastStat) < keyStoreStatPeriod {
		return
	}
	s.lastStat = time.Now()
	info, err := os.Stat(s.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		s.adopt(nil, nil)
	case err != nil:
		s.markUnusable(nil, fmt.Errorf("checking api key file: %w", err))
	case s.changedSinceLastRead(info):
		_ = s.reload() // the outcome is kept in s.loadErr
	}
}

// changedSinceLastRead compares info with the version last read, good or
// broken, so an unchanged broken file is not re-read and re-logged.
func (s *KeyStore) changedSinceLastRead(info os.FileInfo) bool {
	last := s.loaded
	if s.loadErr != nil {
		last = s.broken
	}
	return last == nil || fileChanged(last, info)
}

// fileChanged compares identity (inode: the writer renames a new file into
// place), size and mtime.
func fileChanged(old, cur os.FileInfo) bool {
	return !os.SameFile(old, cur) || old.Size() != cur.Size() || !old.ModTime().Equal(cur.ModTime())
}

// reload reads the file and adopts it, or marks the store unusable. Callers
// hold s.mu.
func (s *KeyStore) reload() error {
	records, info, err := readKeyFile(s.path)
	if err != nil {
		s.markUnusable(info, err)
		return err
	}
	s.adopt(records, info)
	return nil
}

// adopt makes records (from the file version info; nil for no file) the
// current keys and clears any earlier failure.
func (s *KeyStore) adopt(records []KeyRecord, info os.FileInfo) {
	if s.loadErr != nil {
		s.logger.Info("api key file is usable again, api keys are accepted", zap.String("path", s.path))
	}
	s.records, s.loaded, s.loadErr, s.broken = records, info, nil, nil
}

// markUnusable records why the file cannot be used. It logs when the reason
// changes, not on every stat of the same broken file.
func (s *KeyStore) markUnusable(info os.FileInfo, err error) {
	if s.loadErr == nil || s.loadErr.Error() != err.Error() {
		s.logger.Error("api key file is unusable, every api key is refused until it is fixed",
			zap.String("path", s.path), zap.Error(err))
	}
	s.loadErr, s.broken = err, info
}

// LastError reports why the key file cannot be used right now (every API key
// is then refused), or nil when it can. For health reporting; it re-checks
// the file at most once per second.
func (s *KeyStore) LastError() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refresh(false)
	return s.loadErr
}

// readKeyFile reads and parses the file at path: no records and a nil
// FileInfo when it does not exist. Content and FileInfo come from the same
// open file, so a concurrent rename cannot pair old content with new
// metadata. On a parse error the FileInfo of the broken file is returned.
func readKeyFile(path string) ([]KeyRecord, os.FileInfo, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("opening api key file: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("reading api key file: %w", err)
	}
	data, err := io.ReadAll(io.LimitReader(f, 64<<20))
	if err != nil {
		return nil, nil, fmt.Errorf("reading api key file: %w", err)
	}
	records, err := decodeKeyFile(data)
	if err != nil {
		return nil, info, fmt.Errorf("parsing api key file %s: %w", path, err)
	}
	return records, info, nil
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
	s.adopt(records, info)
	s.lastStat = time.Now()
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
