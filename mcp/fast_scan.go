package mcp

import (
	"github.com/go-json-experiment/json/jsontext"

	"github.com/wikigate/wikigate/internal/jsonscan"
)

// scanFast reads body as a fast-path request in one pass, without
// reflection and without copying: the id and the arguments are sub-slices
// of body, which the exchange owns and keeps for the call. It replaced
// json.Unmarshal into fastRequest (plus two more Unmarshal calls for
// clientInfo and clientCapabilities): 3-4 µs and 10 allocations for bench
// run M's body, against 0.9 µs and 1 allocation here (BenchmarkDecodeFast).
//
// It accepts a strict subset of what that decoder accepted, and reads it
// the same way (FuzzScanFastMatchesUnmarshal holds it to the decoder, kept
// in the tests as decodeFastUnmarshal):
//   - exactly the members of fastRequest, fastParams and fastMeta, each
//     once, in any order, with JSON whitespace anywhere JSON allows it;
//   - member names and the strings it reads (jsonrpc, method, name, the
//     revision, clientInfo's members) without escapes or control
//     characters, in valid UTF-8;
//   - an id in simpleID's shapes, clientCapabilities {} or roots with an
//     optional boolean listChanged, clientInfo of strings;
//   - arguments any JSON value nested at most maxArgumentsDepth levels,
//     checked by jsontext with the decoder's defaults (valid UTF-8, no
//     duplicate member names at any depth).
//
// Anything else (null where a value is expected, an escape, a member it
// does not know) is declined, and parseMessage then reads the body as it
// reads every other message: declining only costs speed, never a check.
// withMeta says whether params may carry _meta (the stateless revision)
// or must not (a call on a 2025-* session).
func scanFast(body []byte, withMeta bool) (*fastRequest, bool) {
	s := scanner{jsonscan.Cursor{Buf: body}}
	d := new(fastDecoded)
	req := &d.req
	var seen uint8
	ok := s.object(func(name []byte) bool {
		switch string(name) {
		case "jsonrpc":
			return s.once(&seen, 1) && s.literalString("2.0") && s.set(&req.JSONRPC, "2.0")
		case "id":
			return s.once(&seen, 2) && s.id(&req.ID)
		case "method":
			return s.once(&seen, 4) && s.method(&req.Method)
		case "params":
			return s.once(&seen, 8) && s.params(d, withMeta)
		}
		return false
	})
	if !ok || !s.AtEnd() || seen != 15 {
		return nil, false
	}
	return req, true
}

// fastDecoded holds a scanned request and the parts it points to in one
// allocation.
type fastDecoded struct {
	req    fastRequest
	params fastParams
	meta   fastMeta
	name   string
}

// scanner is a position in a body being scanned, with jsonscan's
// in-place reading (Cursor) under the fast path's shapes.
type scanner struct{ jsonscan.Cursor }

// object reads an object whose member values member reads, given each
// member's name; member reports false for a name it does not take.
func (s *scanner) object(member func(name []byte) bool) bool {
	if !s.Consume('{') {
		return false
	}
	if s.Consume('}') {
		return true
	}
	for {
		s.Peek()
		name, ok := s.PlainString()
		if !ok || !s.Consume(':') {
			return false
		}
		s.Peek()
		if !member(name) {
			return false
		}
		if s.Consume('}') {
			return true
		}
		if !s.Consume(',') {
			return false
		}
	}
}

// once marks bit in seen, refusing a member that came before (the strict
// decoder refuses duplicate names).
func (s *scanner) once(seen *uint8, bit uint8) bool {
	if *seen&bit != 0 {
		return false
	}
	*seen |= bit
	return true
}

func (s *scanner) set(dst *string, v string) bool {
	*dst = v
	return true
}

// literalString reads a plain string equal to want.
func (s *scanner) literalString(want string) bool {
	v, ok := s.PlainString()
	return ok && string(v) == want
}

// method reads one of fastMethods, as a constant (no allocation).
func (s *scanner) method(dst *string) bool {
	v, ok := s.PlainString()
	switch {
	case !ok:
		return false
	case string(v) == "tools/call":
		*dst = "tools/call"
	case string(v) == "tools/list":
		*dst = "tools/list"
	default:
		return false
	}
	return true
}

// id reads an id in simpleID's shapes: a string of printable ASCII that
// needs no escaping, or a canonical integer of at most 18 digits.
func (s *scanner) id(dst *jsontext.Value) bool {
	start := s.Pos
	if s.Pos < len(s.Buf) && s.Buf[s.Pos] == '"' {
		for i := start + 1; i < len(s.Buf); i++ {
			switch c := s.Buf[i]; {
			case c == '"':
				s.Pos = i + 1
				*dst = jsontext.Value(s.Buf[start:s.Pos])
				return true
			case c < 0x20 || c > 0x7e || c == '\\' || c == '<' || c == '>' || c == '&':
				return false
			}
		}
		return false
	}
	// A number runs until a byte that cannot continue it; anything but a
	// canonical integer is then declined by simpleID.
	v := jsontext.Value(s.NumberText())
	if !simpleID(v) {
		return false
	}
	*dst = v
	return true
}

// params reads the params object into d.params.
func (s *scanner) params(d *fastDecoded, withMeta bool) bool {
	p := &d.params
	var seen uint8
	ok := s.object(func(name []byte) bool {
		switch string(name) {
		case "name":
			v, ok := s.PlainString()
			if !ok || !s.once(&seen, 1) {
				return false
			}
			if t := toolIndex[string(v)]; t != nil {
				d.name = t.name // the tool's own string: no copy
			} else {
				d.name = string(v)
			}
			p.Name = &d.name
			return true
		case "arguments":
			return s.once(&seen, 2) && s.value(&p.Arguments)
		case "_meta":
			if !withMeta || !s.once(&seen, 4) || !s.meta(&d.meta) {
				return false
			}
			p.Meta = &d.meta
			return true
		}
		return false
	})
	if ok {
		d.req.Params = p
	}
	return ok
}

// meta reads the _meta triple: the revision (only revisionStateless, as
// decodeFast requires), clientInfo (optional) and clientCapabilities.
func (s *scanner) meta(m *fastMeta) bool {
	var seen uint8
	return s.object(func(name []byte) bool {
		start := s.Pos
		switch string(name) {
		case metaProtocolVersion:
			return s.once(&seen, 1) && s.literalString(revisionStateless) && s.set(&m.ProtocolVersion, revisionStateless)
		case "io.modelcontextprotocol/clientInfo":
			if !s.once(&seen, 2) || !s.clientInfo() {
				return false
			}
			m.ClientInfo = jsontext.Value(s.Buf[start:s.Pos])
			return true
		case "io.modelcontextprotocol/clientCapabilities":
			if !s.once(&seen, 4) || !s.capabilities() {
				return false
			}
			m.ClientCapabilities = jsontext.Value(s.Buf[start:s.Pos])
			return true
		}
		return false
	})
}

// clientInfo reads an object of fastImplementation's string members.
func (s *scanner) clientInfo() bool {
	var seen uint8
	return s.object(func(name []byte) bool {
		var bit uint8
		switch string(name) {
		case "name":
			bit = 1
		case "title":
			bit = 2
		case "description":
			bit = 4
		case "version":
			bit = 8
		case "websiteUrl":
			bit = 16
		default:
			return false
		}
		_, ok := s.PlainString()
		return ok && s.once(&seen, bit)
	})
}

// capabilities reads {} or {"roots":{}} with an optional boolean
// listChanged in roots: fastCapabilities without nulls.
func (s *scanner) capabilities() bool {
	var seen uint8
	return s.object(func(name []byte) bool {
		if string(name) != "roots" || !s.once(&seen, 1) {
			return false
		}
		var inner uint8
		return s.object(func(name []byte) bool {
			return string(name) == "listChanged" && s.once(&inner, 1) && s.boolean()
		})
	})
}

// boolean reads true or false.
func (s *scanner) boolean() bool {
	_, ok := s.Bool()
	return ok
}

// value reads any JSON value: skip finds where it ends, and jsontext
// checks it with the strict decoder's defaults (valid UTF-8, no duplicate
// names, the JSON grammar), so it accepts what decoding into a
// jsontext.Value accepted.
func (s *scanner) value(dst *jsontext.Value) bool {
	start := s.Pos
	if !s.SkipValue(maxArgumentsDepth) {
		return false
	}
	v := jsontext.Value(s.Buf[start:s.Pos])
	if !v.IsValid() {
		return false
	}
	*dst = v
	return true
}

// maxArgumentsDepth bounds the nesting of arguments the fast path takes.
// jsontext limits a whole document to 10,000 levels, counted from the
// body's root; checked on its own, the arguments would get three more.
// No tool's arguments nest beyond a few levels; deeper ones are declined.
const maxArgumentsDepth = 64
