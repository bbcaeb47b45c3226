package policies

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/wikigate/wikigate/internal/jsonscan"
	"github.com/wikigate/wikigate/protocol"
)

// The Wasm evaluator hands its result back as JSON. Converting that to
// OPA's AST to reuse readWireDecision cost more than half of a Wasm
// decision, so readWireJSON reads the JSON straight into a wireDecision,
// exactly as strictly as readWireDecision reads the AST: a field of the
// wrong type is a malformed decision, a missing or null field is its zero
// value, unknown fields are ignored, an empty list is an empty (not nil)
// slice, a number must be a whole number written as one. The Wasm
// differential test and TestReadWireJSONMatchesAST hold the two readers
// to the same results.

// jsonReader is a position in a JSON text the Wasm module wrote (checked
// valid by wasmeval), read in place with jsonscan's Cursor; it still
// checks every byte it relies on, so a bug there is an error, never a
// panic.
type jsonReader struct{ jsonscan.Cursor }

var errJSON = errors.New("malformed JSON result")

// errDuplicateName refuses an object naming a member twice. OPA's AST
// cannot hold such an object (it keeps the last), so the Wasm module never
// writes one; a result that could be read two ways is no decision.
var errDuplicateName = errors.New("malformed JSON result: a member is named twice")

// kind names the next value as ast.ValueName names its AST counterpart.
func (r *jsonReader) kind() string {
	switch c := r.Peek(); {
	case c == '{':
		return "object"
	case c == '[':
		return "array"
	case c == '"':
		return "string"
	case c == 't' || c == 'f':
		return "boolean"
	case c == 'n':
		return "null"
	default:
		return "number"
	}
}

// null consumes a null and reports whether there was one.
func (r *jsonReader) null() bool {
	if r.Peek() == 'n' && r.Word("null") {
		return true
	}
	return false
}

// object calls member for each member name, positioned at its value,
// which member must consume.
func (r *jsonReader) object(member func(name string) error) error {
	if !r.Consume('{') {
		return errJSON
	}
	if r.Consume('}') {
		return nil
	}
	var seen [16]string // a decision's widest object has 11 members
	names := seen[:0]
	for {
		name, err := r.name()
		if err != nil {
			return err
		}
		if slices.Contains(names, name) {
			return errDuplicateName
		}
		names = append(names, name)
		if !r.Consume(':') {
			return errJSON
		}
		if err := member(name); err != nil {
			return err
		}
		switch r.Peek() {
		case ',':
			r.Pos++
		case '}':
			r.Pos++
			return nil
		default:
			return errJSON
		}
	}
}

// array calls elem for each element, positioned at it; elem must
// consume it.
func (r *jsonReader) array(elem func(i int) error) error {
	if !r.Consume('[') {
		return errJSON
	}
	if r.Consume(']') {
		return nil
	}
	for i := 0; ; i++ {
		if err := elem(i); err != nil {
			return err
		}
		switch r.Peek() {
		case ',':
			r.Pos++
		case ']':
			r.Pos++
			return nil
		default:
			return errJSON
		}
	}
}

// name reads a member name. A plain one (no escape, valid UTF-8: every
// name the policy writes) aliases the text rather than being copied, as a
// name is only compared or formatted while its member is read; the one
// reader that keeps names (projectPaths) clones them. Half of a decision's
// strings are names, so this saves as many allocations.
func (r *jsonReader) name() (string, error) {
	if s, ok := r.String(true); ok {
		return s, nil
	}
	return "", errJSON
}

// str reads a string; escapes and invalid UTF-8 (which encoding/json, and
// so the AST reader, turns into U+FFFD) are decoded as encoding/json does.
func (r *jsonReader) str() (string, error) {
	if s, ok := r.String(false); ok {
		return s, nil
	}
	return "", errJSON
}

// skip consumes any one value.
func (r *jsonReader) skip() error {
	switch r.Peek() {
	case '{':
		return r.object(func(string) error { return r.skip() })
	case '[':
		return r.array(func(int) error { return r.skip() })
	case '"':
		_, err := r.str()
		return err
	case 't':
		return r.expect("true")
	case 'f':
		return r.expect("false")
	case 'n':
		return r.expect("null")
	}
	_, err := r.number()
	return err
}

func (r *jsonReader) expect(word string) error {
	if !r.Word(word) {
		return errJSON
	}
	return nil
}

// number reads a number's text.
func (r *jsonReader) number() (string, error) {
	text := r.NumberText()
	if len(text) == 0 {
		return "", errJSON
	}
	return string(text), nil
}

// stringField reads key's value as a string; null is "".
func (r *jsonReader) stringField(key string) (string, error) {
	if r.null() {
		return "", nil
	}
	if k := r.kind(); k != "string" {
		return "", fmt.Errorf("%s is %s, want a string", key, k)
	}
	return r.str()
}

// boolField reads key's value as a boolean; null is false.
func (r *jsonReader) boolField(key string) (bool, error) {
	switch {
	case r.null():
		return false, nil
	case r.Peek() == 't' && r.Word("true"):
		return true, nil
	case r.Peek() == 'f' && r.Word("false"):
		return false, nil
	}
	return false, fmt.Errorf("%s is %s, want a boolean", key, r.kind())
}

// stringsField reads key's value as a list of strings; null is nil, an
// empty list an empty slice.
func (r *jsonReader) stringsField(key string) ([]string, error) {
	if r.null() {
		return nil, nil
	}
	if k := r.kind(); k != "array" {
		return nil, fmt.Errorf("%s is %s, want a list", key, k)
	}
	out := []string{}
	err := r.array(func(i int) error {
		if k := r.kind(); k != "string" {
			return fmt.Errorf("%s[%d] is %s, want a string", key, i, k)
		}
		s, err := r.str()
		out = append(out, s)
		return err
	})
	return out, err
}

// readWireJSON reads raw, the decision as the Wasm module wrote it.
func readWireJSON(raw []byte) (wireDecision, error) {
	r := &jsonReader{jsonscan.Cursor{Buf: raw}}
	var w wireDecision
	if k := r.kind(); k != "object" {
		return w, fmt.Errorf("policy decision is %s, want an object", k)
	}
	err := r.object(func(name string) error { return r.wireField(&w, name) })
	if err == nil && r.Peek() != 0 {
		err = errJSON
	}
	return w, err
}

// wireField reads the decision's member name into w.
func (r *jsonReader) wireField(w *wireDecision, name string) error {
	var err error
	switch name {
	case "allow":
		if r.null() {
			w.Allow = nil
			return nil
		}
		if r.kind() != "boolean" {
			return errors.New("allow is not a boolean")
		}
		allow, err := r.boolField(name)
		w.Allow = &allow
		return err
	case "code":
		var code string
		code, err = r.stringField(name)
		w.Code = protocol.Code(code)
	case "reason":
		w.Reason, err = r.stringField(name)
	case "scope":
		w.Scope, err = r.scope()
	case "project_paths":
		w.ProjectPaths, err = r.projectPaths()
	case "datasets":
		w.Datasets, err = r.datasets()
	case "index":
		w.Index, err = r.stringField(name)
	case "write":
		w.Write, err = r.boolField(name)
	case "write_tools":
		w.WriteTools, err = r.stringsField(name)
	case "pages":
		w.Pages, err = r.stringsField(name)
	case "limits":
		w.Limits, err = r.limits()
	default:
		err = r.skip()
	}
	return err
}

func (r *jsonReader) scope() (*protocol.Scope, error) {
	if r.null() {
		return nil, nil
	}
	if k := r.kind(); k != "object" {
		return nil, fmt.Errorf("scope is %s, want an object", k)
	}
	var s protocol.Scope
	err := r.object(func(name string) error {
		var err error
		switch name {
		case "projects":
			s.Projects, err = r.stringsField(name)
		case "paths":
			s.Paths, err = r.stringsField(name)
		case "version":
			s.Version, err = r.stringField(name)
		case "includeWorkingDocs":
			s.IncludeWorkingDocs, err = r.boolField(name)
		default:
			err = r.skip()
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("scope: %w", err)
	}
	return &s, nil
}

func (r *jsonReader) projectPaths() (map[string][]string, error) {
	if r.null() {
		return nil, nil
	}
	if k := r.kind(); k != "object" {
		return nil, fmt.Errorf("project_paths is %s, want an object", k)
	}
	out := map[string][]string{}
	err := r.object(func(project string) error {
		paths, err := r.stringsField(project)
		if err != nil {
			return fmt.Errorf("project_paths: %w", err)
		}
		out[strings.Clone(project)] = paths // project aliases the text (name)
		return nil
	})
	return out, err
}

// objects reads key's value as a list of objects, calling member for
// each member of element i; it returns the number of elements, -1 for
// null.
func (r *jsonReader) objects(key string, member func(i int, name string) error) (int, error) {
	if r.null() {
		return -1, nil
	}
	if k := r.kind(); k != "array" {
		return 0, fmt.Errorf("%s is %s, want a list", key, k)
	}
	n := 0
	err := r.array(func(i int) error {
		n = i + 1
		if k := r.kind(); k != "object" {
			return fmt.Errorf("%s[%d] is %s, want an object", key, i, k)
		}
		return r.object(func(name string) error {
			if err := member(i, name); err != nil {
				return fmt.Errorf("%s[%d]: %w", key, i, err)
			}
			return nil
		})
	})
	return n, err
}

func (r *jsonReader) datasets() ([]Dataset, error) {
	out := []Dataset{}
	n, err := r.objects("datasets", func(i int, name string) error {
		for i >= len(out) {
			out = append(out, Dataset{})
		}
		d := &out[i]
		var err error
		switch name {
		case "id":
			d.ID, err = r.stringField(name)
		case "project":
			d.Project, err = r.stringField(name)
		case "version":
			d.Version, err = r.stringField(name)
		case "status":
			d.Status, err = r.stringField(name)
		default:
			err = r.skip()
		}
		return err
	})
	if n < 0 || err != nil {
		return nil, err
	}
	for len(out) < n { // {} elements
		out = append(out, Dataset{})
	}
	return out, nil
}

// limitFields are the members a limit must have, as bits.
const (
	limitRequests = 1 << iota
	limitWindow
	limitTokens
)

func (r *jsonReader) limits() ([]Limit, error) {
	out := []Limit{}
	var seen []int
	n, err := r.objects("limits", func(i int, name string) error {
		for i >= len(out) {
			out, seen = append(out, Limit{}), append(seen, 0)
		}
		l := &out[i]
		var err error
		switch name {
		case "name":
			l.Name, err = r.stringField(name)
		case "per":
			l.Per, err = r.stringField(name)
		case "requests":
			l.Requests, err = r.positive(name)
			seen[i] |= limitRequests
		case "tokens":
			l.Tokens, err = r.positive(name)
			seen[i] |= limitTokens
		case "window":
			l.Window, err = r.positive(name)
			seen[i] |= limitWindow
		default:
			err = r.skip()
		}
		return err
	})
	if n < 0 || err != nil {
		return nil, err
	}
	for len(out) < n {
		out, seen = append(out, Limit{}), append(seen, 0)
	}
	for i := range out {
		if err := checkLimit(&out[i], seen[i]); err != nil {
			return nil, fmt.Errorf("limits[%d]: %w", i, err)
		}
	}
	return out, nil
}

// checkLimit is readLimit's checks on a limit read from JSON.
func checkLimit(l *Limit, seen int) error {
	switch {
	case seen&limitRequests != 0 && seen&limitTokens != 0:
		return errBothBudgets
	case seen&(limitRequests|limitTokens) == 0:
		return errors.New("requests is missing or not a number")
	case seen&limitWindow == 0:
		return errors.New("window is missing or not a number")
	case l.Name == "" || (l.Per != PerCaller && l.Per != PerAnonymous):
		return errors.New(`a limit needs a name and per "caller" or "anonymous"`)
	}
	return nil
}

// positive reads key's value as a whole number above zero (readPositive).
func (r *jsonReader) positive(key string) (int, error) {
	if k := r.kind(); k != "number" {
		if err := r.skip(); err != nil {
			return 0, err
		}
		return 0, fmt.Errorf("%s is missing or not a number", key)
	}
	text, err := r.number()
	if err != nil {
		return 0, err
	}
	i, err := strconv.ParseInt(text, 10, 64)
	if err != nil || i <= 0 || int64(int(i)) != i {
		return 0, fmt.Errorf("%s is %s, want a whole number above 0", key, text)
	}
	return int(i), nil
}
