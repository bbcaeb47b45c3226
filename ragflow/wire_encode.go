package ragflow

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"

	"github.com/wikigate/wikigate/protocol"
)

// The two request bodies of an ask are written by hand: encoding/json's
// reflection and its HTML-safe escaping of a ~5 KB prompt were a third of
// a generation's client CPU (BenchmarkAskBackends/complete). The bodies
// hold the same JSON values as json.Marshal's (FuzzRequestBodies decodes
// both and compares): the same members in the same order, strings that
// decode to the same text (invalid UTF-8 as U+FFFD, as there), numbers of
// the same value; only the spelling of an escape or a float may differ.

// jsonBody is a request body that writes its own JSON.
type jsonBody interface {
	appendJSON(b []byte) ([]byte, error)
	sizeHint() int
}

// encodeBody is body's JSON: its own when it writes it, else json.Marshal's.
func encodeBody(body any) ([]byte, error) {
	if jb, ok := body.(jsonBody); ok {
		return jb.appendJSON(make([]byte, 0, jb.sizeHint()))
	}
	return json.Marshal(body)
}

func (r completionRequest) sizeHint() int {
	n := 32
	for _, m := range r.Messages {
		n += len(m.Role) + len(m.Content) + len(m.Content)/32 + 32
	}
	return n
}

func (r completionRequest) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"messages":`...)
	if r.Messages == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, m := range r.Messages {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"role":`...)
			b = appendJSONString(b, m.Role)
			b = append(b, `,"content":`...)
			b = appendJSONString(b, m.Content)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"stream":`...)
	b = strconv.AppendBool(b, r.Stream)
	return append(b, '}'), nil
}

func (r *retrievalRequest) sizeHint() int {
	n := 320 + 2*len(r.Question) + 2*len(r.RerankID)
	for _, id := range r.DatasetIDs {
		n += len(id) + 3
	}
	if r.MetadataCondition != nil {
		n += 64 * len(r.MetadataCondition.Conditions)
	}
	return n
}

func (r *retrievalRequest) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"question":`...)
	b = appendJSONString(b, r.Question)
	b = append(b, `,"dataset_ids":`...)
	b = protocol.AppendJSONStrings(b, r.DatasetIDs)
	if r.MetadataCondition != nil {
		var err error
		b = append(b, `,"metadata_condition":`...)
		if b, err = r.MetadataCondition.appendJSON(b); err != nil {
			return nil, err
		}
	}
	b = append(b, `,"page":`...)
	b = strconv.AppendInt(b, int64(r.Page), 10)
	b = append(b, `,"page_size":`...)
	b = strconv.AppendInt(b, int64(r.PageSize), 10)
	b = append(b, `,"similarity_threshold":`...)
	b, err := appendJSONFloat(b, r.SimilarityThreshold)
	if err != nil {
		return nil, err
	}
	if r.TopK != 0 {
		b = append(b, `,"top_k":`...)
		b = strconv.AppendInt(b, int64(r.TopK), 10)
	}
	b = append(b, `,"highlight":`...)
	b = strconv.AppendBool(b, r.Highlight)
	if r.Keyword {
		b = append(b, `,"keyword":true`...)
	}
	if r.RerankID != "" {
		b = append(b, `,"rerank_id":`...)
		b = appendJSONString(b, r.RerankID)
	}
	b = append(b, `,"reference_metadata":{"include":`...)
	b = strconv.AppendBool(b, r.ReferenceMetadata.Include)
	b = append(b, `,"fields":`...)
	b = protocol.AppendJSONStrings(b, r.ReferenceMetadata.Fields)
	return append(b, "}}"...), nil
}

func (mc *MetadataCondition) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"logic":`...)
	b = appendJSONString(b, mc.Logic)
	b = append(b, `,"conditions":`...)
	if mc.Conditions == nil {
		return append(b, "null}"...), nil
	}
	b = append(b, '[')
	for i, c := range mc.Conditions {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = appendJSONString(b, c.Name)
		b = append(b, `,"comparison_operator":`...)
		b = appendJSONString(b, c.ComparisonOperator)
		b = append(b, `,"value":`...)
		if s, ok := c.Value.(string); ok {
			b = appendJSONString(b, s)
		} else {
			v, err := json.Marshal(c.Value)
			if err != nil {
				return nil, err
			}
			b = append(b, v...)
		}
		b = append(b, '}')
	}
	return append(b, "]}"...), nil
}

// errBadFloat: JSON has no NaN or infinity (json.Marshal refuses them too).
var errBadFloat = errors.New("json: unsupported float value")

// appendJSONFloat writes f in the shortest form that reads back as f.
func appendJSONFloat(b []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, errBadFloat
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64), nil
}

// appendJSONString writes s as a JSON string, as json.Marshal does but
// without its HTML escaping (the decoded value is the same): the one
// string writer the gate's hand-written JSON shares (protocol).
func appendJSONString(b []byte, s string) []byte {
	return protocol.AppendJSONString(b, s, false)
}
