package ragflow

import "github.com/wikigate/wikigate/internal/jsonscan"

// scanner is the one-pass JSON reader the decoders here drive
// (internal/jsonscan, shared with the other backend's decoders).
type scanner = jsonscan.Scanner

var errSyntax = jsonscan.ErrSyntax
