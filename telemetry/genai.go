package telemetry

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// GenAI semantic convention names (OpenTelemetry semantic conventions,
// gen-ai spans), written out so a reader can grep a backend for them.
const (
	GenAIOperationName   = attribute.Key("gen_ai.operation.name")
	GenAIProviderName    = attribute.Key("gen_ai.provider.name")
	GenAIRequestModel    = attribute.Key("gen_ai.request.model")
	GenAIResponseModel   = attribute.Key("gen_ai.response.model")
	GenAIFinishReasons   = attribute.Key("gen_ai.response.finish_reasons")
	GenAIInputTokens     = attribute.Key("gen_ai.usage.input_tokens")
	GenAIOutputTokens    = attribute.Key("gen_ai.usage.output_tokens")
	GenAIDataSourceID    = attribute.Key("gen_ai.data_source.id")
	GenAIInputMessages   = attribute.Key("gen_ai.input.messages")
	GenAIOutputMessages  = attribute.Key("gen_ai.output.messages")
	GenAIToolName        = attribute.Key("gen_ai.tool.name")
	GenAIOutputType      = attribute.Key("gen_ai.output.type")
	ProviderRAGFlow      = "ragflow"
	OperationChat        = "chat"
	OperationRetrieval   = "retrieval"
	OperationExecuteTool = "execute_tool"
)

// DefaultModel is gen_ai.request.model of the gate's completions: the
// gate names no model, so RAGFlow's default LLM for the API key's tenant
// answers (docs/operators.md, Tracing).
const DefaultModel = "ragflow-default"

// StartGeneration begins the client span of one model call, named as the
// conventions ask ("chat ragflow-default"), with its request attributes.
func StartGeneration(ctx context.Context, messages int) (context.Context, Span) {
	if !trace.SpanFromContext(ctx).IsRecording() {
		return ctx, Span{}
	}
	return Start(ctx, OperationChat+" "+DefaultModel, trace.SpanKindClient,
		GenAIOperationName.String(OperationChat),
		GenAIProviderName.String(ProviderRAGFlow),
		GenAIRequestModel.String(DefaultModel),
		GenAIOutputType.String("text"),
		attribute.Int("wikigate.prompt.messages", messages))
}

// Usage is what a completion cost; a zero count is unknown and left out
// of the span.
type Usage struct {
	InputTokens, OutputTokens int
	// Estimated marks counts the gate estimated because the backend
	// reported none (wikigate.usage.estimated on the span).
	Estimated     bool
	Model         string   // the model that answered, when RAGFlow says
	FinishReasons []string // e.g. ["stop"]
}

// EndGeneration records a model call's response attributes and ends it.
func EndGeneration(s Span, u Usage, err error) {
	if !s.Recording() {
		return
	}
	var buf [5]attribute.KeyValue // one SetAttributes: each call costs the SDK a lock and a copy
	attrs := buf[:0]
	if u.InputTokens > 0 {
		attrs = append(attrs, GenAIInputTokens.Int(u.InputTokens))
	}
	if u.OutputTokens > 0 {
		attrs = append(attrs, GenAIOutputTokens.Int(u.OutputTokens))
	}
	if u.Estimated {
		attrs = append(attrs, attribute.Bool("wikigate.usage.estimated", true))
	}
	if u.Model != "" {
		attrs = append(attrs, GenAIResponseModel.String(u.Model))
	}
	if len(u.FinishReasons) > 0 {
		attrs = append(attrs, GenAIFinishReasons.StringSlice(u.FinishReasons))
	}
	s.Set(attrs...)
	s.Fail(err, "ragflow_unavailable")
	s.End()
}

// StartRetrieval begins the client span of one retrieval from RAGFlow
// ("retrieval ragflow"), with the datasets the decision allowed.
func StartRetrieval(ctx context.Context, datasets []string, pageSize int) (context.Context, Span) {
	if !trace.SpanFromContext(ctx).IsRecording() {
		return ctx, Span{}
	}
	return Start(ctx, OperationRetrieval+" "+ProviderRAGFlow, trace.SpanKindClient,
		GenAIOperationName.String(OperationRetrieval),
		GenAIProviderName.String(ProviderRAGFlow),
		GenAIDataSourceID.StringSlice(datasets),
		attribute.Int("wikigate.retrieval.page_size", pageSize))
}

// SetText records the question and the generated answer on the call's
// span (the span in ctx), as the conventions' input and output messages,
// only when the operator opted in (Options.RecordText); otherwise it does
// nothing.
func (p *Provider) SetText(ctx context.Context, question, answer string) {
	if !p.RecordText() {
		return
	}
	s := trace.SpanFromContext(ctx)
	if !s.IsRecording() {
		return
	}
	s.SetAttributes(GenAIInputMessages.String(`[{"role":"user","parts":[{"type":"text","content":`+quote(question)+`}]}]`),
		GenAIOutputMessages.String(`[{"role":"assistant","parts":[{"type":"text","content":`+quote(answer)+`}]}]`))
}
