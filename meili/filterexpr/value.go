package filterexpr

// ParseValue parses a filter as a request or a tenant token carries it: a
// string, the array form (outer elements ANDed, an inner array's strings
// ORed, strings only; docs/backends.md, Meilisearch wire details: Filter
// language), or nil. Blank strings and empty arrays add nothing; no
// filter at all is nil, nil.
func (p Parser) ParseValue(v any) (Node, *Error) {
	switch t := v.(type) {
	case nil:
		return nil, nil
	case string:
		return p.Parse(t)
	case []any:
		return p.parseArray(t)
	}
	return nil, typeError("String, Array", v)
}

func (p Parser) parseArray(items []any) (Node, *Error) {
	var ands []Node
	for _, item := range items {
		var node Node
		var err *Error
		switch t := item.(type) {
		case string:
			node, err = p.Parse(t)
		case []any:
			node, err = p.parseOr(t)
		default:
			err = typeError("String, [String]", item)
		}
		if err != nil {
			return nil, err
		}
		if node != nil {
			ands = append(ands, node)
		}
	}
	return join(ands, func(c []Node) Node { return And{c} }), nil
}

func (p Parser) parseOr(items []any) (Node, *Error) {
	var ors []Node
	for _, item := range items {
		s, ok := item.(string)
		if !ok {
			return nil, typeError("String", item)
		}
		node, err := p.Parse(s)
		if err != nil {
			return nil, err
		}
		if node != nil {
			ors = append(ors, node)
		}
	}
	return join(ors, func(c []Node) Node { return Or{c} }), nil
}

func join(nodes []Node, joined func([]Node) Node) Node {
	switch len(nodes) {
	case 0:
		return nil
	case 1:
		return nodes[0]
	}
	return joined(nodes)
}
