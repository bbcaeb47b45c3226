package ragflow

import (
	"bytes"
	"io"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// wireReader reads the bodies on the ask path (a retrieval, each SSE event
// of a generation) in one pass straight into the gate's types, where
// encoding/json took one pass to validate, one to copy the envelope's data,
// and the same again for the data and for every chunk. It keeps
// encoding/json's reading rules exactly (decode_oracle_test.go holds the
// old decoding and FuzzWireMatchesStdlib compares the two): member names
// match case-insensitively, the last of duplicate members wins (a map
// merges), invalid UTF-8 becomes U+FFFD, null leaves a string, number or
// bool as it was and sets a pointer, map or interface to nil, and a value
// of the wrong type fails the decode (mismatch) while the rest is still
// checked for syntax, so a syntax error anywhere is always a syntax error.
type wireReader struct {
	dec      *jsontext.Decoder
	src      bytes.Buffer // the body; pooled with the reader
	name     []byte       // unquoting scratch for member names
	text     []byte       // unquoting scratch for string values
	mismatch bool         // a value had a type its field cannot hold
}

// wireOptions: encoding/json accepts duplicate names and invalid UTF-8.
var wireOptions = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

var wireReaders = sync.Pool{New: func() any {
	return &wireReader{dec: jsontext.NewDecoder(bytes.NewReader(nil), wireOptions...)}
}}

func getWireReader() *wireReader {
	r := wireReaders.Get().(*wireReader)
	r.src.Reset()
	return r
}

// putWireReader recycles r unless a rare large body grew its buffer.
func putWireReader(r *wireReader) {
	if r.src.Cap() <= 256<<10 {
		wireReaders.Put(r)
	}
}

// start reads the value in r.src from its beginning; the decoder parses
// the buffer in place (decoded strings are copies).
func (r *wireReader) start() {
	r.dec.Reset(&r.src, wireOptions...)
	r.mismatch = false
}

// end checks that nothing but blanks follows the top-level value.
func (r *wireReader) end() error {
	if _, err := r.dec.ReadToken(); err != io.EOF {
		if err == nil {
			return errTrailingValue
		}
		return err
	}
	return nil
}

var errTrailingValue = badResponse("data after the top-level value")

// wrongType records a type mismatch and skips (and so checks) the value.
func (r *wireReader) wrongType() error {
	r.mismatch = true
	return r.dec.SkipValue()
}

// members calls each with the unquoted name of every member of the object
// that comes next; each must read the member's value. The name is only
// valid until each reads.
func (r *wireReader) members(each func(name []byte) error) error {
	if _, err := r.dec.ReadToken(); err != nil {
		return err
	}
	for r.dec.PeekKind() != '}' {
		raw, err := r.dec.ReadValue()
		if err != nil {
			return err
		}
		if err := each(r.unquoteName(raw)); err != nil {
			return err
		}
	}
	_, err := r.dec.ReadToken()
	return err
}

func (r *wireReader) unquoteName(raw []byte) []byte {
	if plain := raw[1 : len(raw)-1]; isPlainString(plain) {
		return plain
	}
	r.name, _ = jsontext.AppendUnquote(r.name[:0], raw) // invalid UTF-8 came out as U+FFFD
	return r.name
}

// isPlainString: no escape and only valid UTF-8, so the quoted bytes are
// the value.
func isPlainString(s []byte) bool {
	return bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s)
}

// elements calls each for every element of the array that comes next.
func (r *wireReader) elements(each func() error) error {
	if _, err := r.dec.ReadToken(); err != nil {
		return err
	}
	for r.dec.PeekKind() != ']' {
		if err := each(); err != nil {
			return err
		}
	}
	_, err := r.dec.ReadToken()
	return err
}

// field is the index in names of name, matched as encoding/json matches a
// member to a struct field (exactly, else under Unicode case folding), or
// -1. The names of one struct never fold onto each other.
func field(name []byte, names []string) int {
	for i, n := range names {
		if string(name) == n {
			return i
		}
	}
	ascii := isASCII(name)
	for i, n := range names {
		// An ASCII name folds onto n only at n's length; others may not
		// ("ſ" is an "s" in two bytes).
		if (!ascii || len(name) == len(n)) && bytes.EqualFold(name, []byte(n)) {
			return i
		}
	}
	return -1
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// skipNull consumes a null.
func (r *wireReader) skipNull() error {
	_, err := r.dec.ReadToken()
	return err
}

// stringValue reads a JSON string.
func (r *wireReader) stringValue() (string, error) {
	raw, err := r.dec.ReadValue()
	if err != nil {
		return "", err
	}
	if plain := raw[1 : len(raw)-1]; isPlainString(plain) {
		return string(plain), nil
	}
	r.text, _ = jsontext.AppendUnquote(r.text[:0], raw) // invalid UTF-8 came out as U+FFFD
	return string(r.text), nil
}

// readString reads a string field: null leaves it.
func (r *wireReader) readString(dst *string) (err error) {
	switch r.dec.PeekKind() {
	case '"':
		*dst, err = r.stringValue()
		return err
	case 'n':
		return r.skipNull()
	}
	return r.wrongType()
}

// readBool reads a bool field: null leaves it.
func (r *wireReader) readBool(dst *bool) error {
	switch r.dec.PeekKind() {
	case 't', 'f':
		tok, err := r.dec.ReadToken()
		if err == nil {
			*dst = tok.Bool()
		}
		return err
	case 'n':
		return r.skipNull()
	}
	return r.wrongType()
}

// readInt reads an int field as encoding/json does (an integer literal in
// range; "1.0" or "1e2" is a mismatch): null leaves it.
func (r *wireReader) readInt(dst *int) error {
	switch r.dec.PeekKind() {
	case '0':
		raw, err := r.dec.ReadValue()
		if err != nil {
			return err
		}
		if n, perr := strconv.ParseInt(string(raw), 10, 64); perr == nil {
			*dst = int(n)
		} else {
			r.mismatch = true
		}
		return nil
	case 'n':
		return r.skipNull()
	}
	return r.wrongType()
}

// readIntPtr reads a *int field: null sets it to nil.
func (r *wireReader) readIntPtr(dst **int) error {
	if r.dec.PeekKind() == 'n' {
		*dst = nil
		return r.skipNull()
	}
	n := 0
	mismatch := r.mismatch
	r.mismatch = false
	err := r.readInt(&n)
	if !r.mismatch {
		*dst = &n
	}
	r.mismatch = r.mismatch || mismatch
	return err
}

// readFloatPtr reads a *float64 field: null sets it to nil; a number out
// of float64's range is a mismatch.
func (r *wireReader) readFloatPtr(dst **float64) error {
	switch r.dec.PeekKind() {
	case '0':
		raw, err := r.dec.ReadValue()
		if err != nil {
			return err
		}
		if f, perr := strconv.ParseFloat(string(raw), 64); perr == nil {
			*dst = &f
		} else {
			r.mismatch = true
		}
		return nil
	case 'n':
		*dst = nil
		return r.skipNull()
	}
	return r.wrongType()
}

// readAny reads a value into an interface as encoding/json does: objects
// as map[string]any, arrays as []any (never nil), numbers as float64.
func (r *wireReader) readAny() (any, error) {
	switch r.dec.PeekKind() {
	case '{':
		m := map[string]any{}
		return m, r.members(func(name []byte) error {
			key := string(name)
			v, err := r.readAny()
			m[key] = v
			return err
		})
	case '[':
		list := []any{}
		err := r.elements(func() error {
			v, err := r.readAny()
			list = append(list, v)
			return err
		})
		return list, err
	case '"':
		return r.stringValue()
	case '0':
		raw, err := r.dec.ReadValue()
		if err != nil {
			return nil, err
		}
		f, perr := strconv.ParseFloat(string(raw), 64)
		if perr != nil {
			r.mismatch = true
			return nil, nil
		}
		return f, nil
	case 't', 'f':
		tok, err := r.dec.ReadToken()
		if err != nil {
			return nil, err
		}
		return tok.Bool(), nil
	}
	return nil, r.skipNull() // null, or the syntax error ReadToken finds
}

// readMap reads a map[string]any field: null sets it to nil; an object
// adds its members to the map already there.
func (r *wireReader) readMap(dst *map[string]any) error {
	switch r.dec.PeekKind() {
	case '{':
		if *dst == nil {
			*dst = map[string]any{}
		}
		m := *dst
		return r.members(func(name []byte) error {
			key := string(name)
			v, err := r.readAny()
			m[key] = v
			return err
		})
	case 'n':
		*dst = nil
		return r.skipNull()
	}
	return r.wrongType()
}
