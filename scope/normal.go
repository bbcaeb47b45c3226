package scope

import (
	"unicode/utf8"

	"github.com/wikigate/wikigate/protocol"
)

// IsNormalPath reports whether p is a path NormalizePath accepts and
// returns unchanged. Every hit of every search is checked this way (a path
// that normalizing would change names another page than it seems to), so
// an ASCII path, nearly every one, is judged in one pass without building
// an error; others go through NormalizePath.
func IsNormalPath(p string) bool {
	if p == "" || len(p) > protocol.MaxPathBytes || p[0] == '/' || p[len(p)-1] == '/' {
		return false
	}
	segment := 0
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c >= utf8.RuneSelf:
			clean, err := NormalizePath("path", p)
			return err == nil && clean == p
		case c == '/':
			if !isNormalSegment(p[segment:i]) {
				return false
			}
			segment = i + 1
		case runeProblem(rune(c)) != "":
			return false
		}
	}
	return isNormalSegment(p[segment:])
}

func isNormalSegment(s string) bool {
	return s != "" && s != "." && s != ".."
}
