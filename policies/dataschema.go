package policies

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/wikigate/wikigate/policyschema"
)

// ErrDataSchema is wrapped by every refusal of policy data that does not
// match policyschema/data.json (rego/README.md "data.json").
var ErrDataSchema = errors.New("policy data does not match policyschema/data.json")

// dataSchemaURL names the compiled data schema (its $id).
const dataSchemaURL = "https://wikigate.dev/schema/policy-data.json"

// dataSchema is compiled once: santhosh-tekuri/jsonschema reports each
// failure with the instance location and a typed kind (the unknown member
// names of additionalProperties), which is what the refusal message needs;
// OPA's schema support only type-checks Rego references, it does not
// validate data.
var dataSchema = mustDataSchema()

func mustDataSchema() *jsonschema.Schema {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(policyschema.Data))
	if err != nil {
		panic(fmt.Sprintf("policyschema/data.json: %v", err)) // embedded at build time: a bad file fails every test
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(dataSchemaURL, doc); err != nil {
		panic(fmt.Sprintf("policyschema/data.json: %v", err))
	}
	s, err := c.Compile(dataSchemaURL)
	if err != nil {
		panic(fmt.Sprintf("policyschema/data.json: %v", err))
	}
	return s
}

// CheckData validates a policy's merged data document (what the loader
// read from its data files) against the data schema. The error lists
// every mismatch as a JSON path and what is wrong there, e.g.
//
//	agents["x"].disable: unknown member, did you mean "disabled"?
func CheckData(doc map[string]any) error {
	if doc == nil {
		doc = map[string]any{}
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrDataSchema, err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("%w: %w", ErrDataSchema, err)
	}
	err = dataSchema.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return fmt.Errorf("%w: %w", ErrDataSchema, err)
	}
	problems := slices.Compact(slices.Sorted(slices.Values(leafProblems(ve))))
	return fmt.Errorf("%w:\n  %s", ErrDataSchema, strings.Join(problems, "\n  "))
}

// englishPrinter words the library's messages (it needs a printer).
var englishPrinter = message.NewPrinter(language.English)

// leafProblems flattens a validation error to one line per failing value.
func leafProblems(ve *jsonschema.ValidationError) []string {
	if len(ve.Causes) > 0 {
		var out []string
		for _, c := range ve.Causes {
			out = append(out, leafProblems(c)...)
		}
		return out
	}
	if ap, ok := ve.ErrorKind.(*kind.AdditionalProperties); ok {
		out := make([]string, 0, len(ap.Properties))
		for _, p := range ap.Properties {
			out = append(out, unknownMember(append(slices.Clone(ve.InstanceLocation), p), ve.SchemaURL))
		}
		return out
	}
	return []string{jsonPath(ve.InstanceLocation) + ": " + ve.ErrorKind.LocalizedString(englishPrinter)}
}

// unknownMember words an additionalProperties failure, suggesting the
// closest allowed member when one is a likely typo.
func unknownMember(loc []string, schemaURL string) string {
	name := loc[len(loc)-1]
	msg := jsonPath(loc[:len(loc)-1]) + "." + name
	switch {
	case len(loc) == 1 && isIdent(name):
		msg = name // a top-level member, as data.json spells it
	case !isIdent(name) || len(loc) == 1:
		msg = jsonPath(loc)
	}
	msg += ": unknown member"
	if s := closest(loc[len(loc)-1], allowedMembers(schemaURL)); s != "" {
		msg += fmt.Sprintf(", did you mean %q?", s)
	}
	return msg
}

// jsonPath writes an instance location as data.json reads it:
// agents["kunora-coding-agent"].grants["kunora-kgent"].paths[0].
func jsonPath(loc []string) string {
	var b strings.Builder
	for _, tok := range loc {
		switch {
		case isIndex(tok):
			b.WriteString("[" + tok + "]")
		case memberNames[tok]:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(tok)
		default:
			b.WriteString("[" + strconv.Quote(tok) + "]")
		}
	}
	if b.Len() == 0 {
		return "(data)"
	}
	return b.String()
}

func isIndex(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil && s != "" && s[0] != '-' && s[0] != '+'
}

// schemaDoc is the data schema as a plain JSON document, read to name the
// members an object allows.
var schemaDoc = func() map[string]any {
	var doc map[string]any
	if err := json.Unmarshal(policyschema.Data, &doc); err != nil {
		panic(fmt.Sprintf("policyschema/data.json: %v", err))
	}
	return doc
}()

// memberNames are every member any closed object of the schema names; a
// location token among them is written .name, any other (an agent, project
// or version id) ["id"].
var memberNames = func() map[string]bool {
	names := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			if props, ok := t["properties"].(map[string]any); ok {
				for k := range props {
					names[k] = true
				}
			}
			for _, c := range t {
				walk(c)
			}
		case []any:
			for _, c := range t {
				walk(c)
			}
		}
	}
	walk(schemaDoc)
	return names
}()

// allowedMembers lists the properties of the schema object at schemaURL
// (its JSON pointer fragment, the keyword itself trimmed).
func allowedMembers(schemaURL string) []string {
	_, frag, _ := strings.Cut(schemaURL, "#")
	if props := propertiesAt(frag); len(props) > 0 {
		return props
	}
	return propertiesAt(strings.TrimSuffix(frag, "/additionalProperties"))
}

// propertiesAt lists the properties of the schema object at the JSON
// pointer frag.
func propertiesAt(frag string) []string {
	var node any = schemaDoc
	for _, tok := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
		if tok == "" {
			continue
		}
		m, ok := node.(map[string]any)
		if !ok {
			return nil
		}
		node = m[strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")]
	}
	m, _ := node.(map[string]any)
	props, _ := m["properties"].(map[string]any)
	out := make([]string, 0, len(props))
	for k := range props {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// closest is the allowed member within two edits of name, "" when none.
func closest(name string, allowed []string) string {
	best, bestDist := "", 3
	for _, a := range allowed {
		if d := editDistance(name, a); d < bestDist {
			best, bestDist = a, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// isIdent reports whether a member name reads plainly after a dot.
func isIdent(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}
