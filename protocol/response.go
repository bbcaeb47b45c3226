package protocol

// Audit is the audit block every successful body carries; its RequestID is
// the X-Request-Id header and the audit record's id.
type Audit struct {
	RequestID string `json:"requestId"`
	Caller    string `json:"caller"`
	Scope     string `json:"scope"`
	SessionID string `json:"sessionId,omitempty"`
}

// SearchHit is one page hit of the search tool.
type SearchHit struct {
	Path          string  `json:"path"`
	URL           string  `json:"url"`
	Title         string  `json:"title"`
	Anchor        string  `json:"anchor,omitempty"`
	Snippet       string  `json:"snippet"`
	Score         float64 `json:"score"`
	SourceProject string  `json:"sourceProject"`
	Version       string  `json:"version"`
}

// SearchResult is the body of a search response.
type SearchResult struct {
	Hits  []SearchHit `json:"hits"`
	Total int         `json:"total"`
	Audit Audit       `json:"audit"`
}

// Page is one page returned by get_page.
type Page struct {
	Path          string   `json:"path"`
	URL           string   `json:"url"`
	Title         string   `json:"title"`
	Version       string   `json:"version"`
	SourceProject string   `json:"sourceProject"`
	Content       string   `json:"content"`
	Headings      []string `json:"headings"`
}

// PageError reports one path of a get_page batch that could not be returned.
type PageError struct {
	Path    string `json:"path"`
	Code    Code   `json:"code"`
	Message string `json:"message"`
}

// PageResult is the body of a get_page response.
type PageResult struct {
	Pages  []Page      `json:"pages"`
	Errors []PageError `json:"errors"`
	Audit  Audit       `json:"audit"`
}
