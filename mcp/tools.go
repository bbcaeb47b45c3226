package mcp

import (
	"encoding/json"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolDef is one of the six agent tools as MCP lists it. The set is fixed
// (it is the protocol's); who sees which tool is the policy's business.
type toolDef struct {
	name, title, description string
	input, output            json.RawMessage
	readOnly                 bool
}

// Descriptions are written for a model choosing a tool: what it returns,
// when to prefer it, and what the denials mean.
var toolDefs = []toolDef{
	{
		name: "search", title: "Search the wiki", readOnly: true,
		description: "Full-text search over the wiki pages you are allowed to read. Returns page hits (path, url, title, snippet, score) ranked by relevance. " +
			"Use it to find which pages cover a topic, then get_page to read them. Asking for projects or paths outside your grant fails with forbidden_scope.",
		input: inputSearch, output: outputSearch,
	},
	{
		name: "ask", title: "Ask the wiki a question", readOnly: true,
		description: "Answers a question from the wiki pages in your scope, with numbered citations ([1], [2]...) pointing at the pages used, a confidence (high, medium, low) and grounding. " +
			"When the wiki does not contain the answer you get noAnswerReason instead of a guess, plus a create_feedback action you can take to report the gap.",
		input: inputAsk, output: outputAsk,
	},
	{
		name: "get_page", title: "Read wiki pages", readOnly: true,
		description: "Returns the full content (Markdown) and headings of one page (path) or up to 10 pages (paths), using the paths from search hits or citations. " +
			"Pages you may not read are reported in errors with forbidden_scope, missing ones with not_found; the others are still returned.",
		input: inputGetPage, output: outputGetPage,
	},
	{
		name: "get_context", title: "Get context for a task", readOnly: true,
		description: "Collects the most relevant wiki passages for a task or question, trimmed to a token budget (maxTokens, default 4000, at most 12000), with citations. " +
			"Use it to ground your own work in the wiki without asking for a generated answer.",
		input: inputGetContext, output: outputGetContext,
	},
	{
		name: "create_feedback", title: "Report a wiki gap",
		description: "Records feedback about the wiki, typically a question it could not answer (eventType qa_no_answer). The same gap reported again, by anyone, is merged into one record whose count grows. " +
			"Send an idempotencyKey to retry safely.",
		input: inputCreateFeedback, output: outputFeedback,
	},
	{
		name: "create_improvement_task", title: "Create a wiki improvement task",
		description: "Creates a task to improve the wiki (for example: document what a no-answer showed missing), merged with the same task reported before. Only some callers may create tasks; others get forbidden_tool. " +
			"Send an idempotencyKey to retry safely.",
		input: inputCreateTask, output: outputFeedback,
	},
}

// tool builds the SDK's definition. Read tools are read-only. Write tools are
// idempotent only when the call carries an idempotencyKey, which a per-tool
// annotation cannot say: they are marked idempotent and their description
// tells the model to send the key (docs/agents.md, "The tools"); they never
// destroy anything (a repeat merges into the same record).
func (d toolDef) tool() *mcpsdk.Tool {
	ann := &mcpsdk.ToolAnnotations{Title: d.title, ReadOnlyHint: d.readOnly, IdempotentHint: true, OpenWorldHint: ptr(false)}
	if !d.readOnly {
		ann.DestructiveHint = ptr(false)
	}
	return &mcpsdk.Tool{
		Name: d.name, Title: d.title, Description: d.description,
		InputSchema: d.input, OutputSchema: d.output, Annotations: ann,
	}
}

func ptr[T any](v T) *T { return &v }

// toolIndex finds a definition by name.
var toolIndex = func() map[string]*toolDef {
	m := make(map[string]*toolDef, len(toolDefs))
	for i := range toolDefs {
		m[toolDefs[i].name] = &toolDefs[i]
	}
	return m
}()
