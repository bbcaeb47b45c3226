package identity

import (
	"encoding/binary"
	"errors"
	"math"
)

// The token cache stores an entry as bytes (bigcache keeps them off the GC's
// heap). A hit decodes one per request, so the format is a flat binary one
// rather than JSON (which was most of a cache hit's cost): the token's exp
// (8 bytes, big-endian seconds), a flags byte (bit 0: anonymous), then
// Type, ID, Credential and KeyID as uvarint-length-prefixed strings, then
// the number of roles and each role the same way. Type and Credential
// decode to the package's constants, so they cost no allocation.

const flagAnonymous = 1

var errBadEntry = errors.New("identity: malformed token cache entry")

func encodeCachedPrincipal(e cachedPrincipal) []byte {
	p := e.Principal
	n := 9 + 5*binary.MaxVarintLen64 + len(p.Type) + len(p.ID) + len(p.Credential) + len(p.KeyID)
	for _, r := range p.Roles {
		n += binary.MaxVarintLen64 + len(r)
	}
	b := make([]byte, 8, n)
	binary.BigEndian.PutUint64(b, uint64(e.ExpUnix))
	var flags byte
	if p.Anonymous {
		flags |= flagAnonymous
	}
	b = append(b, flags)
	for _, s := range []string{p.Type, p.ID, p.Credential, p.KeyID} {
		b = appendString(b, s)
	}
	b = binary.AppendUvarint(b, uint64(len(p.Roles)))
	for _, r := range p.Roles {
		b = appendString(b, r)
	}
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func decodeCachedPrincipal(b []byte) (cachedPrincipal, error) {
	var e cachedPrincipal
	if len(b) < 9 {
		return e, errBadEntry
	}
	e.ExpUnix = int64(binary.BigEndian.Uint64(b))
	e.Principal.Anonymous = b[8]&flagAnonymous != 0
	d := entryDecoder{b: b[9:]}
	e.Principal.Type = d.known(TypeAgent, TypeHuman)
	e.Principal.ID = d.string()
	e.Principal.Credential = d.known(CredentialJWT, CredentialAPIKey, CredentialSSO, CredentialAnonymous)
	e.Principal.KeyID = d.string()
	if n := d.uvarint(); n > 0 && n <= uint64(len(d.b)) {
		e.Principal.Roles = make([]string, n)
		for i := range e.Principal.Roles {
			e.Principal.Roles[i] = d.string()
		}
	} else if n > 0 {
		d.bad = true
	}
	if d.bad || len(d.b) != 0 {
		return cachedPrincipal{}, errBadEntry
	}
	return e, nil
}

// entryDecoder reads an entry's fields; a field that does not fit marks it
// bad and reads as empty.
type entryDecoder struct {
	b   []byte
	bad bool
}

func (d *entryDecoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.bad = true
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *entryDecoder) bytes() []byte {
	n := d.uvarint()
	if n > uint64(len(d.b)) || n > math.MaxInt32 {
		d.bad = true
		return nil
	}
	s := d.b[:n]
	d.b = d.b[n:]
	return s
}

func (d *entryDecoder) string() string { return string(d.bytes()) }

// known returns the constant among choices equal to the next string, so
// the common values are not allocated.
func (d *entryDecoder) known(choices ...string) string {
	s := d.bytes()
	for _, c := range choices {
		if string(s) == c {
			return c
		}
	}
	return string(s)
}
