package policies

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
)

// jsonValue is the policy input as encoding/json produces it: the reference
// toAST and appendKey must agree with.
func jsonValue(t *testing.T, in Input) (ast.Value, []byte) {
	t.Helper()
	raw, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	v, err := ast.ValueFromReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	return v, raw
}

// randomInputs fills every field of Input by reflection, so a field added
// to Input (or to the types it holds) is exercised without editing this
// test. Strings come from a tiny alphabet and slices are nil, empty or
// short, so equal inputs and every omitempty case occur often.
func randomInputs(n int) []Input {
	out := make([]Input, n)
	for i := range out {
		out[i] = randomInput(uint64(i))
	}
	return out
}

func randomInput(seed uint64) Input {
	var in Input
	fill(rand.New(rand.NewPCG(seed, 2)), reflect.ValueOf(&in).Elem())
	return in
}

// nearCopies are inputs paired with a copy that has one field refilled:
// the refill often leaves the JSON unchanged (nil and empty lists under
// omitempty, the same string drawn again) and often changes it.
func nearCopies(n int) [][2]Input {
	r := rand.New(rand.NewPCG(3, 4))
	out := make([][2]Input, n)
	for i := range out {
		a, b := randomInput(uint64(i)), randomInput(uint64(i))
		var fields []reflect.Value
		collectFields(reflect.ValueOf(&b).Elem(), &fields)
		fill(r, fields[r.IntN(len(fields))])
		out[i] = [2]Input{a, b}
	}
	return out
}

// collectFields lists every settable value under v.
func collectFields(v reflect.Value, out *[]reflect.Value) {
	*out = append(*out, v)
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			collectFields(v.Field(i), out)
		}
	case reflect.Pointer:
		if !v.IsNil() {
			collectFields(v.Elem(), out)
		}
	case reflect.Slice:
		for i := range v.Len() {
			collectFields(v.Index(i), out)
		}
	}
}

func fill(r *rand.Rand, v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString([]string{"", "a", "b"}[r.IntN(3)])
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 1)
	case reflect.Slice:
		switch n := r.IntN(4); n {
		case 0: // nil
		default:
			s := reflect.MakeSlice(v.Type(), n-1, n-1)
			for i := range n - 1 {
				fill(r, s.Index(i))
			}
			v.Set(s)
		}
	case reflect.Map:
		// Maps are gate-internal (json:"-") parts of a scope: filling them
		// checks that they never reach the policy input or the cache key.
		if n := r.IntN(3); n > 0 {
			m := reflect.MakeMapWithSize(v.Type(), n)
			for range n {
				k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
				fill(r, k)
				fill(r, e)
				m.SetMapIndex(k, e)
			}
			v.Set(m)
		}
	case reflect.Pointer:
		if r.IntN(2) == 1 {
			p := reflect.New(v.Type().Elem())
			fill(r, p.Elem())
			v.Set(p)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			fill(r, v.Field(i))
		}
	default:
		panic("fill: add a case for " + v.Kind().String())
	}
}

func TestToASTMatchesJSONEncoding(t *testing.T) {
	t.Parallel()
	for _, in := range randomInputs(2000) {
		want, raw := jsonValue(t, in)
		if got := in.toAST(); got.Compare(want) != 0 {
			t.Fatalf("toAST = %v\nJSON  = %s", got, raw)
		}
	}
}

// TestInputKeyIsCanonical checks that two inputs share a cache key exactly
// when the policy would see the same input: a shared key for different
// inputs would serve one caller's decision to another.
func TestInputKeyIsCanonical(t *testing.T) {
	t.Parallel()
	same, different := 0, 0
	for _, pair := range nearCopies(3000) {
		_, jsonA := jsonValue(t, pair[0])
		_, jsonB := jsonValue(t, pair[1])
		sameKey := bytes.Equal(pair[0].appendKey(nil), pair[1].appendKey(nil))
		if sameJSON := bytes.Equal(jsonA, jsonB); sameKey != sameJSON {
			t.Fatalf("same key %v, same JSON %v:\n%s\n%s", sameKey, sameJSON, jsonA, jsonB)
		}
		if sameKey {
			same++
		} else {
			different++
		}
	}
	if same < 100 || different < 100 {
		t.Fatalf("%d equal and %d different pairs; the test proves little", same, different)
	}
}

func TestKeyForSeparatesRevisions(t *testing.T) {
	t.Parallel()
	in := randomInputs(1)[0]
	if keyFor("aaaaaaaaaaaa", &in) == keyFor("bbbbbbbbbbbb", &in) {
		t.Error("the same input under two policy revisions shares a cache key")
	}
}
