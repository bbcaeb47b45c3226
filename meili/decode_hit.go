package meili

import "strconv"

var (
	hitFields = []string{"id", "path", "url", "title", "project", "version", "status",
		"pathPrefixes", "headings", "content", "_formatted", "_rankingScore"}
	formattedFields = []string{"content", "title"}
)

// hitValue reads one element of hits into h, over what h holds (null
// leaves it as it is).
func (s *scanner) hitValue(h *Hit) error {
	more, err := s.openObject()
	for ; more && err == nil; more, err = s.Next('}') {
		var k []byte
		if k, err = s.Key(); err == nil {
			err = s.hitMember(h, k)
		}
		if err != nil {
			break
		}
	}
	return err
}

func (s *scanner) hitMember(h *Hit, k []byte) error {
	switch field(k, hitFields) {
	case "id":
		return s.documentID(&h.ID)
	case "path":
		return s.stringField(&h.Path)
	case "url":
		return s.stringField(&h.URL)
	case "title":
		return s.stringField(&h.Title)
	case "project":
		return s.stringField(&h.Project)
	case "version":
		return s.stringField(&h.Version)
	case "status":
		return s.stringField(&h.Status)
	case "pathPrefixes":
		return s.stringsField(&h.PathPrefixes)
	case "headings":
		return s.stringsField(&h.Headings)
	case "content":
		return s.stringField(&h.Content)
	case "_formatted":
		return s.formatted(&h.Formatted)
	case "_rankingScore":
		return s.floatField(&h.RankingScore)
	}
	return s.Skip()
}

// formatted reads _formatted over what f holds.
func (s *scanner) formatted(f *Formatted) error {
	more, err := s.openObject()
	for ; more && err == nil; more, err = s.Next('}') {
		var k []byte
		if k, err = s.Key(); err != nil {
			break
		}
		switch field(k, formattedFields) {
		case "content":
			err = s.formattedText(&f.Content)
		case "title":
			err = s.formattedText(&f.Title)
		default:
			err = s.Skip()
		}
		if err != nil {
			break
		}
	}
	return err
}

// openObject starts reading an object: true when a member follows, false
// for {} or null (which leaves the value as it was); another type is an
// error.
func (s *scanner) openObject() (bool, error) {
	switch s.Peek() {
	case 'n':
		if s.Null() {
			return false, nil
		}
		return false, errSyntax
	case '{':
		if err := s.Open(); err != nil {
			return false, err
		}
		return s.First('}'), nil
	}
	return false, s.wrongType()
}

// formattedText is FormattedText.UnmarshalJSON: a string, or "" for any
// other value.
func (s *scanner) formattedText(t *FormattedText) error {
	if s.Peek() == '"' {
		v, err := s.StringValue()
		*t = FormattedText(v)
		return err
	}
	*t = ""
	return s.Skip()
}

// documentID is DocumentID.UnmarshalJSON: a string, an integer kept as its
// decimal text, or null for "".
func (s *scanner) documentID(id *DocumentID) error {
	switch c := s.Peek(); {
	case c == '"':
		v, err := s.StringValue()
		*id = DocumentID(v)
		return err
	case c == '-' || '0' <= c && c <= '9':
		text, err := s.Number()
		if err != nil {
			return err
		}
		if !isInteger(text) {
			return errType
		}
		*id = DocumentID(text)
		return nil
	case s.Null():
		*id = ""
		return nil
	}
	return s.wrongType()
}

func isInteger(text string) bool {
	if _, err := strconv.ParseUint(text, 10, 64); err == nil {
		return true
	}
	_, err := strconv.ParseInt(text, 10, 64)
	return err == nil
}

// stringsField reads a []string as encoding/json does: null makes it nil,
// an array decodes over the earlier elements (a null element leaves one as
// it was).
func (s *scanner) stringsField(dst *[]string) error {
	switch s.Peek() {
	case 'n':
		if s.Null() {
			*dst = nil
			return nil
		}
		return errSyntax
	case '[':
	default:
		return s.wrongType()
	}
	if err := s.Open(); err != nil {
		return err
	}
	v, i := *dst, 0
	for more := s.First(']'); more; i++ {
		switch {
		case i >= cap(v):
			v = append(v, "")
		case i >= len(v):
			v = v[:i+1]
		}
		if err := s.stringField(&v[i]); err != nil {
			return err
		}
		var err error
		if more, err = s.Next(']'); err != nil {
			return err
		}
	}
	if i == 0 {
		v = []string{}
	}
	*dst = v[:i]
	return nil
}

// facetField reads facetDistribution as encoding/json reads a
// map[string]map[string]int: null makes it nil, an object adds to the map,
// each facet's counts replace that facet's earlier ones.
func (s *scanner) facetField(dst *map[string]map[string]int) error {
	if s.Null() {
		*dst = nil
		return nil
	}
	if s.Peek() != '{' {
		return s.wrongType()
	}
	if *dst == nil {
		*dst = map[string]map[string]int{}
	}
	more, err := s.openObject()
	for ; more && err == nil; more, err = s.Next('}') {
		var k []byte
		if k, err = s.Key(); err != nil {
			break
		}
		name := string(k)
		var counts map[string]int
		if err = s.countsValue(&counts); err != nil {
			break
		}
		(*dst)[name] = counts
	}
	return err
}

func (s *scanner) countsValue(dst *map[string]int) error {
	if s.Null() {
		return nil
	}
	if s.Peek() != '{' {
		return s.wrongType()
	}
	*dst = map[string]int{}
	more, err := s.openObject()
	for ; more && err == nil; more, err = s.Next('}') {
		var k []byte
		if k, err = s.Key(); err != nil {
			break
		}
		name := string(k)
		var n int
		if err = s.intField(&n); err != nil {
			break
		}
		(*dst)[name] = n
	}
	return err
}
