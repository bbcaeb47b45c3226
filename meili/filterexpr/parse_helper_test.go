package filterexpr

// Parse parses one filter expression with the engine's bounds, as the
// tests of this package write it; the gate and the development Meilisearch
// parse through a Parser (their bounds) or ParseValue.
func Parse(s string) (Node, *Error) { return Parser{}.Parse(s) }
