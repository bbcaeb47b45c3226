package ragflow

import (
	"bytes"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// wireReader reads the bodies on the ask path (a retrieval, each SSE event
// of a generation) in one pass straight into the gate's types, where
// encoding/json took one pass to validate, one to copy the envelope's data,
// and the same again for the data and for every chunk. It keeps
// encoding/json's reading rules exactly (wire_oracle_test.go holds the
// old decoding, and FuzzWireRetrieval and FuzzWireEvent compare the two): member names
// match case-insensitively, the last of duplicate members wins (a map
// merges), invalid UTF-8 becomes U+FFFD, null leaves a string, number or
// bool as it was and sets a pointer, map or interface to nil, and a value
// of the wrong type fails the decode (mismatch) while the rest is still
// checked for syntax, so a syntax error anywhere is always a syntax error.
// The strings it returns share one copy of the body (scanner), which
// lives as long as any of them: the chunks of one call.
type wireReader struct {
	s        scanner
	src      bytes.Buffer // the body; pooled with the reader
	mismatch bool         // a value had a type its field cannot hold
}

var wireReaders = sync.Pool{New: func() any { return new(wireReader) }}

func getWireReader() *wireReader {
	r := wireReaders.Get().(*wireReader)
	r.src.Reset()
	return r
}

// putWireReader recycles r unless a rare large body grew its buffers.
func putWireReader(r *wireReader) {
	r.s.Release() // let the body's string go
	if r.src.Cap() <= 256<<10 && r.s.ScratchCap() <= 256<<10 {
		wireReaders.Put(r)
	}
}

// end checks that nothing but blanks follows the top-level value.
func (r *wireReader) end() error {
	if err := r.s.End(); err != nil {
		return errTrailingValue
	}
	return nil
}

var errTrailingValue = badResponse("data after the top-level value")

// kind is the kind of the value that comes next, as jsontext names kinds:
// '{', '[', '"', '0' (a number), 'n', 't', 'f'; what cannot start a value
// is itself (a '}' or ']') or 0, and reading it as a value fails.
func (r *wireReader) kind() jsontext.Kind {
	switch c := r.s.Peek(); {
	case c == '-' || '0' <= c && c <= '9':
		return '0'
	case c == '{' || c == '[' || c == '"' || c == 'n' || c == 't' || c == 'f' || c == '}' || c == ']':
		return jsontext.Kind(c)
	}
	return 0
}

// skipValue consumes the next value, checking its syntax.
func (r *wireReader) skipValue() error { return r.s.Skip() }

// wrongType records a type mismatch and skips (and so checks) the value.
func (r *wireReader) wrongType() error {
	r.mismatch = true
	return r.s.Skip()
}

// members calls each with the unquoted name of every member of the object
// that comes next (the caller has seen its '{'); each must read the
// member's value. The name is only valid until each reads.
func (r *wireReader) members(each func(name []byte) error) error {
	s := &r.s
	if err := s.Open(); err != nil {
		return err
	}
	for more := s.First('}'); more; {
		name, err := s.Key()
		if err != nil {
			return err
		}
		if err := each(name); err != nil {
			return err
		}
		if more, err = s.Next('}'); err != nil {
			return err
		}
	}
	return nil
}

// elements calls each for every element of the array that comes next
// (the caller has seen its '[').
func (r *wireReader) elements(each func() error) error {
	s := &r.s
	if err := s.Open(); err != nil {
		return err
	}
	for more := s.First(']'); more; {
		if err := each(); err != nil {
			return err
		}
		var err error
		if more, err = s.Next(']'); err != nil {
			return err
		}
	}
	return nil
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

// skipNull consumes a null (the caller has seen its 'n').
func (r *wireReader) skipNull() error {
	if !r.s.Null() {
		return errSyntax
	}
	return nil
}

// stringValue reads a JSON string (the caller has seen its '"').
func (r *wireReader) stringValue() (string, error) {
	return r.s.StringValue()
}

// readString reads a string field: null leaves it.
func (r *wireReader) readString(dst *string) (err error) {
	switch r.kind() {
	case '"':
		*dst, err = r.stringValue()
		return err
	case 'n':
		return r.skipNull()
	}
	return r.wrongType()
}

// boolValue reads true or false (the caller has seen its 't' or 'f').
func (r *wireReader) boolValue() (bool, error) {
	return r.s.Bool()
}

// readBool reads a bool field: null leaves it.
func (r *wireReader) readBool(dst *bool) error {
	switch r.kind() {
	case 't', 'f':
		b, err := r.boolValue()
		if err == nil {
			*dst = b
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
	switch r.kind() {
	case '0':
		raw, err := r.s.Number()
		if err != nil {
			return err
		}
		if n, perr := strconv.ParseInt(raw, 10, 64); perr == nil {
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
	if r.kind() == 'n' {
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

// readScore reads a chunk's score as a *float64 field read through
// orZero: a number is itself, null is 0; a number out of float64's range
// is a mismatch.
func (r *wireReader) readScore(dst *float64) error {
	switch r.kind() {
	case '0':
		raw, err := r.s.Number()
		if err != nil {
			return err
		}
		if f, perr := strconv.ParseFloat(raw, 64); perr == nil {
			*dst = f
		} else {
			r.mismatch = true
		}
		return nil
	case 'n':
		*dst = 0
		return r.skipNull()
	}
	return r.wrongType()
}

// readAny reads a value into an interface as encoding/json does: objects
// as map[string]any, arrays as []any (never nil), numbers as float64.
func (r *wireReader) readAny() (any, error) {
	switch r.kind() {
	case '{':
		m := map[string]any{}
		return m, r.members(func(name []byte) error {
			key := r.s.KeyString(name)
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
		raw, err := r.s.Number()
		if err != nil {
			return nil, err
		}
		f, perr := strconv.ParseFloat(raw, 64)
		if perr != nil {
			r.mismatch = true
			return nil, nil
		}
		return f, nil
	case 't', 'f':
		return r.boolValue()
	}
	return nil, r.s.Literal() // null, or the syntax error it is
}

// readMap reads a map[string]any field: null sets it to nil; an object
// adds its members to the map already there.
func (r *wireReader) readMap(dst *map[string]any) error {
	switch r.kind() {
	case '{':
		if *dst == nil {
			*dst = map[string]any{}
		}
		m := *dst
		return r.members(func(name []byte) error {
			key := r.s.KeyString(name)
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
