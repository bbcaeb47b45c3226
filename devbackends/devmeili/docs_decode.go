package devmeili

import (
	"bytes"
	"encoding/json"
	"sort"
)

// decodeDocuments reads a document payload: one object or an array of
// objects, each kept in field order (the engine returns fields in indexing
// order). String arrays become []string and numeric ids strings, the forms
// the search and filter code of this server work on.
func decodeDocuments(body []byte) ([]orderedObject, *apiError) {
	var raw json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, malformedDocuments(err.Error())
	}
	trimmed := bytes.TrimSpace(raw)
	var items []json.RawMessage
	if len(trimmed) > 0 && trimmed[0] == '[' {
		if err := json.Unmarshal(trimmed, &items); err != nil {
			return nil, malformedDocuments(err.Error())
		}
	} else {
		items = []json.RawMessage{trimmed}
	}
	docs := make([]orderedObject, 0, len(items))
	for _, item := range items {
		members, err := decodeObject(item)
		if err != nil {
			return nil, malformedDocuments("data are neither an object nor a list of objects")
		}
		doc := make(orderedObject, 0, len(members))
		for _, m := range members {
			doc = append(doc, field{m.key, normalizeValue(m.key, m.value)})
		}
		docs = append(docs, doc)
	}
	return docs, nil
}

func malformedDocuments(why string) *apiError {
	return newError("malformed_payload", "The `json` payload provided is malformed. `Couldn't serialize document value: %s`.", why)
}

func normalizeValue(key string, v any) any {
	if n, ok := v.(json.Number); ok && key == "id" {
		return n.String()
	}
	items, ok := v.([]any)
	if !ok {
		return v
	}
	strs := make([]string, 0, len(items))
	for _, it := range items {
		s, ok := it.(string)
		if !ok {
			return v
		}
		strs = append(strs, s)
	}
	return strs
}

func sortedCopy(list []string) []string {
	out := append([]string(nil), list...)
	sort.Strings(out)
	return out
}
