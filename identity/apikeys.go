package identity

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/wikigate/wikigate/protocol"
)

// API key format: wgk_<8-char prefix>_<43 url-safe random chars>. The prefix
// is public (listed, logged by operators, used to revoke); the random part
// carries 256 bits and exists only in the plaintext handed out once.
const (
	apiKeyScheme       = "wgk_"
	apiKeyPrefixLen    = 8
	apiKeySecretLen    = 43 // base64url of 32 bytes
	apiKeyLen          = len(apiKeyScheme) + apiKeyPrefixLen + 1 + apiKeySecretLen
	keyStoreStatPeriod = time.Second // how often Lookup may stat the file
	sha256HexLen       = 64

	prefixAlphabet = "abcdefghijklmnopqrstuvwxyz234567" // lowercase base32: no "_" to confuse parsing
	secretAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
)

var prefixEncoding = base32.NewEncoding(prefixAlphabet).WithPadding(base32.NoPadding)

// KeyRecord is one stored API key. Only the SHA-256 of the whole plaintext is
// kept, never the key.
type KeyRecord struct {
	Prefix    string     `json:"prefix"`
	Hash      string     `json:"hash"` // hex SHA-256 of the plaintext key
	Label     string     `json:"label"`
	Agent     string     `json:"agent"`
	CreatedAt time.Time  `json:"createdAt"`
	ExpiresAt *time.Time `json:"expiresAt,omitempty"`
	Revoked   bool       `json:"revoked"`
	// LastUsedAt is when a gate last accepted the key (nil: never), filled
	// by List from the usage file; it is never written to the key file.
	LastUsedAt *time.Time `json:"-"`
}

// expired reports whether the key is past its expiry at now.
func (r KeyRecord) expired(now time.Time) bool {
	return r.ExpiresAt != nil && !now.Before(*r.ExpiresAt)
}

// KeyStore is the API key file. The server reads it; the CLI (another
// process) writes it, so Lookup notices file changes: it stats the file at
// most once per second, and once more at once when a prefix is unknown.
// Safe for concurrent use.
//
// While the file cannot be read or parsed (say an operator's hand edit left
// a trailing comma), every lookup fails: serving the last good keys would
// keep a key working that the edit meant to revoke.
type KeyStore struct {
	path   string
	now    func() time.Time // CreatedAt/expiry clock; tests replace it
	logger *zap.Logger

	mu       sync.Mutex
	records  []KeyRecord
	loaded   os.FileInfo // file as last read successfully; nil when it did not exist
	loadErr  error       // why the file cannot be used now; nil when it can
	broken   os.FileInfo // the unparseable file version behind loadErr, if it was read
	lastStat time.Time   // wall clock of the last stat, for throttling

	usage *keyUsage // last-used times, kept beside the key file
}

// KeyStoreOption configures OpenKeyStore.
type KeyStoreOption func(*KeyStore)

// WithKeyStoreLogger sets where the store reports that the key file became
// unusable or usable again; the default discards. Only the path and the
// parse error are logged, never keys or hashes.
func WithKeyStoreLogger(logger *zap.Logger) KeyStoreOption {
	return func(s *KeyStore) {
		if logger != nil {
			s.logger = logger
		}
	}
}

// OpenKeyStore reads the key file at path. A missing file is an empty store;
// its directory is created on the first write. A file that does not parse is
// an error here, so a broken file stops the server from starting.
func OpenKeyStore(path string, opts ...KeyStoreOption) (*KeyStore, error) {
	if path == "" {
		return nil, errors.New("api key file path is empty")
	}
	s := &KeyStore{path: path, now: time.Now, logger: zap.NewNop(), usage: newKeyUsage(path)}
	for _, opt := range opts {
		opt(s)
	}
	records, info, err := readKeyFile(path)
	if err != nil {
		return nil, err
	}
	s.records, s.loaded = records, info
	return s, nil
}

// Create adds a key for agent and returns its plaintext, which is not stored
// and cannot be shown again. ttl 0 means no expiry.
func (s *KeyStore) Create(agent, label string, ttl time.Duration) (string, KeyRecord, error) {
	if strings.TrimSpace(agent) == "" {
		return "", KeyRecord{}, errors.New("api key agent is empty")
	}
	if ttl < 0 {
		return "", KeyRecord{}, errors.New("api key ttl must not be negative")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.reload(); err != nil { // never overwrite keys another process added
		return "", KeyRecord{}, err
	}
	prefix, err := s.unusedPrefix()
	if err != nil {
		return "", KeyRecord{}, err
	}
	plaintext := apiKeyScheme + prefix + "_" + base64.RawURLEncoding.EncodeToString(randomBytes(32))
	now := s.now().UTC()
	rec := KeyRecord{Prefix: prefix, Hash: hashAPIKey(plaintext), Label: label, Agent: agent, CreatedAt: now}
	if ttl > 0 {
		exp := now.Add(ttl)
		rec.ExpiresAt = &exp
	}
	if err := s.save(append(slices.Clone(s.records), rec)); err != nil {
		return "", KeyRecord{}, err
	}
	return plaintext, rec, nil
}

// Revoke marks the key with prefix as revoked. Revoked keys stay listed so
// audits can still name them.
func (s *KeyStore) Revoke(prefix string) error {
	_, _, err := s.RevokeRecord(prefix)
	return err
}

// RevokeRecord revokes the key with prefix and returns its record as it
// now stands, so the operator can see which agent and label lost access,
// and whether it was revoked already (then the file is left as it is).
func (s *KeyStore) RevokeRecord(prefix string) (rec KeyRecord, already bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.reload(); err != nil {
		return KeyRecord{}, false, err
	}
	records := slices.Clone(s.records)
	i := slices.IndexFunc(records, func(r KeyRecord) bool { return r.Prefix == prefix })
	if i < 0 {
		return KeyRecord{}, false, fmt.Errorf("no api key with prefix %q", prefix)
	}
	if records[i].Revoked {
		return records[i], true, nil
	}
	records[i].Revoked = true
	return records[i], false, s.save(records)
}

// List returns all keys, oldest first, as the file holds them now, each
// with the last time a gate accepted it (to within usageFlushPeriod for
// uses by another process).
func (s *KeyStore) List() []KeyRecord {
	s.mu.Lock()
	s.refresh(true) // not a hot path: always current
	out := slices.Clone(s.records)
	s.mu.Unlock()
	used := s.usage.times()
	for i := range out {
		if t, ok := used[out[i].Prefix]; ok {
			out[i].LastUsedAt = &t
		}
	}
	slices.SortStableFunc(out, func(a, b KeyRecord) int { return a.CreatedAt.Compare(b.CreatedAt) })
	return out
}

// KeyRefused is the refusal of a real key that is revoked or expired: the
// caller proved it holds the key, so the audit record may name the key's
// public prefix and agent, which is how the security team finds who still
// uses a key it revoked. It unwraps to the protocol error the caller gets.
type KeyRefused struct {
	Err          *protocol.Error
	KeyID, Agent string
}

func (e *KeyRefused) Error() string { return e.Err.Error() }
func (e *KeyRefused) Unwrap() error { return e.Err }

// Lookup checks a plaintext key. Errors are protocol unauthorized errors:
// invalid, expired or revoked. Expired and revoked are only told to callers
// holding the real key.
func (s *KeyStore) Lookup(plaintext string) (KeyRecord, error) {
	return s.lookupAt(plaintext, s.now())
}

func (s *KeyStore) lookupAt(plaintext string, now time.Time) (KeyRecord, error) {
	prefix, ok := parseAPIKey(plaintext)
	if !ok {
		return KeyRecord{}, unauthorized(msgAPIKeyInvalid)
	}
	s.mu.Lock()
	s.refresh(false)
	rec, found := s.find(prefix)
	if !found {
		s.refresh(true)
		rec, found = s.find(prefix)
	}
	unavailable := s.loadErr != nil
	s.mu.Unlock()
	switch {
	case unavailable:
		return KeyRecord{}, unauthorized(msgAPIKeysUnavailable)
	case !found || subtle.ConstantTimeCompare([]byte(hashAPIKey(plaintext)), []byte(rec.Hash)) != 1:
		return KeyRecord{}, unauthorized(msgAPIKeyInvalid)
	case rec.Revoked:
		return KeyRecord{}, &KeyRefused{Err: unauthorized(msgAPIKeyRevoked), KeyID: rec.Prefix, Agent: rec.Agent}
	case rec.expired(now):
		return KeyRecord{}, &KeyRefused{Err: unauthorized(msgAPIKeyExpired), KeyID: rec.Prefix, Agent: rec.Agent}
	}
	s.usage.used(rec.Prefix, now)
	return rec, nil
}

func (s *KeyStore) find(prefix string) (KeyRecord, bool) {
	for _, r := range s.records {
		if r.Prefix == prefix {
			return r, true
		}
	}
	return KeyRecord{}, false
}

func (s *KeyStore) unusedPrefix() (string, error) {
	for range 16 {
		prefix := prefixEncoding.EncodeToString(randomBytes(5))
		if _, taken := s.find(prefix); !taken {
			return prefix, nil
		}
	}
	return "", errors.New("could not pick an unused api key prefix")
}

// parseAPIKey checks the shape of a plaintext key and returns its prefix.
func parseAPIKey(key string) (string, bool) {
	if len(key) != apiKeyLen || !strings.HasPrefix(key, apiKeyScheme) {
		return "", false
	}
	rest := key[len(apiKeyScheme):]
	prefix, secret := rest[:apiKeyPrefixLen], rest[apiKeyPrefixLen+1:]
	if rest[apiKeyPrefixLen] != '_' || !validPrefix(prefix) || !onlyFrom(secret, secretAlphabet) {
		return "", false
	}
	return prefix, true
}

func validPrefix(prefix string) bool {
	return len(prefix) == apiKeyPrefixLen && onlyFrom(prefix, prefixAlphabet)
}

func onlyFrom(s, alphabet string) bool {
	for _, c := range s {
		if !strings.ContainsRune(alphabet, c) {
			return false
		}
	}
	return true
}

func hashAPIKey(plaintext string) string {
	sum := sha256.Sum256([]byte(plaintext))
	return hex.EncodeToString(sum[:])
}

// randomBytes reads from crypto/rand, which never fails on supported
// platforms (Go 1.24+ crashes the program instead of returning an error).
func randomBytes(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}
