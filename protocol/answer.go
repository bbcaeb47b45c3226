package protocol

// Confidence levels of an AnswerResult (docs/protocol.md, AnswerResult).
const (
	ConfidenceHigh   = "high"
	ConfidenceMedium = "medium"
	ConfidenceLow    = "low"
)

// Grounding statuses: how an answer is supported by its citations.
const (
	GroundingGrounded   = "grounded"   // every sentence generated was supported by what it cites
	GroundingPartial    = "partial"    // unsupported sentences were dropped; what is shown is supported
	GroundingUngrounded = "ungrounded" // nothing supported: a no-answer, never shipped as an answer
)

// Event types of feedback records and actions (docs/protocol.md, Results:
// FeedbackResult).
const (
	EventNoAnswer = "qa_no_answer"
	// EventAnswer is feedback on an answer: a rating (Rating*) and an
	// optional comment, keyed over the answer's citation paths.
	EventAnswer = "qa_answer"
)

// Ratings of an answer, sent with EventAnswer feedback.
const (
	RatingHelpful    = "helpful"
	RatingNotHelpful = "not_helpful"
)

// Action types offered with an AnswerResult (docs/protocol.md, AnswerResult:
// No answer).
const (
	ActionCreateFeedback        = "create_feedback"
	ActionCreateImprovementTask = "create_improvement_task"
)

// Citation points at the evidence behind an answer (docs/protocol.md,
// AnswerResult).
type Citation struct {
	Path          string `json:"path"`
	URL           string `json:"url"`
	Title         string `json:"title"`
	Anchor        string `json:"anchor"`
	ChunkID       string `json:"chunkId"`
	SourceProject string `json:"sourceProject"`
	Version       string `json:"version"`
}

// Grounding says how the answer is supported (docs/protocol.md "Citations and grounding"). Sentences
// counts the claims the model generated (a code block is one),
// CitedSentences those shown, each supported by a citation it carries,
// DroppedSentences those removed as unsupported. Supported is the shown
// share of the generated text, by characters. Citations has one entry per
// returned citation, in the same order.
type Grounding struct {
	Status           string              `json:"status"`
	CitedSentences   int                 `json:"citedSentences"`
	Sentences        int                 `json:"sentences"`
	DroppedSentences int                 `json:"droppedSentences"`
	Supported        float64             `json:"supported"`
	Sources          int                 `json:"sources"`
	TopScore         float64             `json:"topScore"`
	Citations        []CitationGrounding `json:"citations"`
}

// CitationGrounding is how well citation [Ref] supports the sentences that
// carry it: Support is the lowest support score (0..1, token overlap with
// the cited chunk) among its Sentences; GateCited counts the sentences the
// gate cited on the model's behalf (requireCitations:false).
type CitationGrounding struct {
	Ref       int     `json:"ref"`
	ChunkID   string  `json:"chunkId"`
	Sentences int     `json:"sentences"`
	Support   float64 `json:"support"`
	GateCited int     `json:"gateCited"`
}

// NoAnswerReason explains an honest "no answer" (docs/protocol.md,
// AnswerResult: No answer): Code is always no_answer, Reason one of the
// NoAnswer* values.
type NoAnswerReason struct {
	Code    Code   `json:"code"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// Reasons for a no-answer.
const (
	NoAnswerNoEvidence    = "no_evidence"        // retrieval found nothing in scope
	NoAnswerEmptyResponse = "empty_response"     // the backend said it found nothing
	NoAnswerUncited       = "uncited_answer"     // no sentence was supported by a valid citation
	NoAnswerUnsupported   = "unsupported_answer" // too little of the answer was supported
)

// RelatedPage is a page that was retrieved but not cited.
type RelatedPage struct {
	Path          string  `json:"path"`
	URL           string  `json:"url"`
	Title         string  `json:"title"`
	SourceProject string  `json:"sourceProject"`
	Version       string  `json:"version"`
	Score         float64 `json:"score"`
}

// Action is a follow-up the caller may take (docs/protocol.md, AnswerResult).
type Action struct {
	Type      string `json:"type"`
	Enabled   bool   `json:"enabled"`
	DedupeKey string `json:"dedupeKey"`
	// Endpoint is the route that takes the action, set where it is not
	// the agent tool: people's answers name POST /answer/feedback.
	Endpoint string `json:"endpoint,omitempty"`
}

// AnswerResult is the answer schema (docs/protocol.md, AnswerResult).
type AnswerResult struct {
	Answer         string          `json:"answer"`
	Summary        string          `json:"summary"`
	Citations      []Citation      `json:"citations"`
	Confidence     string          `json:"confidence"`
	Grounding      Grounding       `json:"grounding"`
	NoAnswerReason *NoAnswerReason `json:"noAnswerReason"`
	RelatedPages   []RelatedPage   `json:"relatedPages"`
	Actions        []Action        `json:"actions"`
	// CitationSummary, on session turns only, lists what the session's
	// trimmed earlier turns cited (docs/protocol.md, Results:
	// SessionCreated), oldest first.
	CitationSummary []Citation `json:"citationSummary,omitempty"`
	Audit           Audit      `json:"audit"`
}

// ContextItem is one chunk of a ContextPack.
type ContextItem struct {
	Path          string  `json:"path"`
	URL           string  `json:"url"`
	Title         string  `json:"title"`
	Anchor        string  `json:"anchor"`
	ChunkID       string  `json:"chunkId"`
	Content       string  `json:"content"`
	Score         float64 `json:"score"`
	SourceProject string  `json:"sourceProject"`
	Version       string  `json:"version"`
}

// ContextPack is the body of get_context: the most relevant in-scope chunks
// for a task, trimmed to a token budget.
type ContextPack struct {
	Question      string        `json:"question"`
	Scope         Scope         `json:"scope"`
	Items         []ContextItem `json:"items"`
	Citations     []Citation    `json:"citations"`
	TokenEstimate int           `json:"tokenEstimate"`
	MaxTokens     int           `json:"maxTokens"`
	Truncated     bool          `json:"truncated"`
	Audit         Audit         `json:"audit"`
}

// AskRequest is the body of /agent/tools/ask and /answer/ask.
type AskRequest struct {
	Standard
}

// GetContextRequest is the body of /agent/tools/get_context.
type GetContextRequest struct {
	Standard
	MaxTokens int `json:"maxTokens,omitempty"`
}

// Token budgets of get_context.
const (
	DefaultContextTokens = 4000
	MaxContextTokens     = 12000
)
