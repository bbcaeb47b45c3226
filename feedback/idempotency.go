package feedback

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// purgeBatch bounds how many expired idempotency entries one Submit removes,
// so lazy purging never makes a single request slow.
const purgeBatch = 64

// idemEntry is what an idempotency key remembers: the body it was first
// used with and the exact response that body got.
type idemEntry struct {
	BodyHash  string    `json:"bodyHash"`
	Response  []byte    `json:"response"`
	RecordID  string    `json:"recordId"`
	Created   bool      `json:"created"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// idemKey scopes a client's idempotency key to its caller and tool, so two
// callers choosing the same key never see each other's responses. It is a
// hash: the JSON array is an unambiguous join of the four parts.
func idemKey(sub Submission) []byte {
	parts, _ := json.Marshal([]string{"wikigate-idem-v1", sub.Caller.Type, sub.Caller.ID, sub.Tool, sub.IdempotencyKey})
	sum := sha256.Sum256(parts)
	return sum[:]
}

// expiryKey orders entries by expiry time, so purging reads a prefix.
func expiryKey(expires time.Time, key []byte) []byte {
	k := binary.BigEndian.AppendUint64(nil, uint64(max(expires.UnixNano(), 0)))
	return append(k, key...)
}

// lookupIdem returns the live entry under key, or nil. An expired entry is
// deleted on sight and reported absent.
func lookupIdem(tx *bolt.Tx, key []byte, now time.Time) (*idemEntry, error) {
	v := tx.Bucket(bucketIdem).Get(key)
	if v == nil {
		return nil, nil
	}
	e := new(idemEntry)
	if err := json.Unmarshal(v, e); err != nil {
		return nil, fmt.Errorf("decoding idempotency entry: %w", err)
	}
	if now.Before(e.ExpiresAt) {
		return e, nil
	}
	return nil, deleteIdem(tx, key, e.ExpiresAt)
}

func saveIdem(tx *bolt.Tx, key []byte, e *idemEntry) error {
	v, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("encoding idempotency entry: %w", err)
	}
	if err := tx.Bucket(bucketIdem).Put(key, v); err != nil {
		return err
	}
	return tx.Bucket(bucketIdemExpiry).Put(expiryKey(e.ExpiresAt, key), nil)
}

func deleteIdem(tx *bolt.Tx, key []byte, expires time.Time) error {
	if err := tx.Bucket(bucketIdem).Delete(key); err != nil {
		return err
	}
	return tx.Bucket(bucketIdemExpiry).Delete(expiryKey(expires, key))
}

// purgeExpiredIdem deletes up to purgeBatch entries that expired by now.
// Keys are collected first: deleting while a cursor walks is unsafe in bbolt.
func purgeExpiredIdem(tx *bolt.Tx, now time.Time) error {
	limit := expiryKey(now, nil)
	var expired [][]byte
	c := tx.Bucket(bucketIdemExpiry).Cursor()
	for k, _ := c.First(); k != nil && len(expired) < purgeBatch; k, _ = c.Next() {
		if bytes.Compare(k[:8], limit) > 0 {
			break
		}
		expired = append(expired, bytes.Clone(k))
	}
	for _, k := range expired {
		if err := purgeOne(tx, k); err != nil {
			return err
		}
	}
	return nil
}

// purgeOne drops the index entry k and the idempotency entry it points at,
// unless that entry was since renewed with a later expiry.
func purgeOne(tx *bolt.Tx, k []byte) error {
	key := k[8:]
	if v := tx.Bucket(bucketIdem).Get(key); v != nil {
		var e idemEntry
		if json.Unmarshal(v, &e) != nil || bytes.Equal(expiryKey(e.ExpiresAt, key), k) {
			if err := tx.Bucket(bucketIdem).Delete(key); err != nil {
				return err
			}
		}
	}
	return tx.Bucket(bucketIdemExpiry).Delete(k)
}
