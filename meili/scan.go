package meili

import "github.com/wikigate/wikigate/internal/jsonscan"

// scanner is the one-pass JSON reader (internal/jsonscan, shared with
// ragflow's decoders) with the search response's readers as methods.
type scanner struct{ jsonscan.Scanner }

var (
	errSyntax = jsonscan.ErrSyntax
	errType   = jsonscan.ErrType
)
