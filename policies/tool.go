package policies

import (
	"context"
	"errors"
	"fmt"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/metrics"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/topdown"
	"go.uber.org/zap"
)

// ToolQuery is the policy's tool gate (rego/tools_gate.rego): the checks the
// protocol puts before the request body (docs/protocol.md, Order of checks:
// token, identity, policy, tool), asked with who calls and which tool only.
// The gateway asks it before reading the body, so a caller cannot probe the
// body schema of a tool it may not use.
const ToolQuery = "data.wikigate.tool_decision"

// toolKeyTag keeps the tool gate's cache entries apart from the decision's:
// a call without scope or page has the same Input for both queries.
// Revisions are hex, so no revision ends with it.
const toolKeyTag = "|" + ToolQuery

// prepareToolQuery prepares ToolQuery when the policy defines it; nil when
// it does not (DecideTool then denies every call: fail closed).
func prepareToolQuery(ctx context.Context, compiler *ast.Compiler, store storage.Store) (*rego.PreparedEvalQuery, error) {
	if checkQueryDefined(compiler, ToolQuery) != nil {
		return nil, nil
	}
	pq, err := rego.New(rego.Query(ToolQuery), rego.Compiler(compiler), rego.Store(store),
		rego.GenerateJSON(keepTerm)).PrepareForEval(ctx)
	if err != nil {
		return nil, fmt.Errorf("prepare policy query %s: %w", ToolQuery, err)
	}
	return &pq, nil
}

// logToolGateMissing warns that a policy without ToolQuery denies every call.
func (e *Engine) logToolGateMissing(p *prepared) {
	if p.tool == nil {
		e.logger.Warn("the policy defines no tool gate; every call is denied until it does",
			zap.String("query", ToolQuery), zap.String("revision", p.revision))
	}
}

// DecideTool asks the policy's tool gate about in, of which only endpoint,
// tool, action, site mode and caller are read (the body is not read yet).
// An allow only lets the call go on to its full Decide. Any error means
// deny, as for Decide; a policy without the gate is
// ErrUndefinedDecision. Decisions are cached like Decide's.
func (e *Engine) DecideTool(ctx context.Context, in Input) (Decision, error) {
	st := e.startDecision()
	d, err := e.decideTool(ctx, in, &st)
	e.finishDecision(ctx, PathToolDecision, &in, d, err, &st)
	return d, err
}

func (e *Engine) decideTool(ctx context.Context, in Input, st *decisionStats) (Decision, error) {
	p := e.current.Load()
	denied := Decision{Revision: p.revision, Digest: p.digest}
	if err := ctx.Err(); err != nil {
		return denied, fmt.Errorf("decide tool: %w", err)
	}
	if p.tool == nil {
		return denied, fmt.Errorf("policy %s: %s: %w", p.revision, ToolQuery, ErrUndefinedDecision)
	}
	in = Input{Endpoint: in.Endpoint, Tool: in.Tool, Action: in.Action, SiteMode: in.SiteMode, Caller: in.Caller}
	var key cacheKey
	if p.cache != nil {
		key = keyFor(p.revision+toolKeyTag, &in)
		if d, ok := p.cache.get(key); ok {
			st.cached = true
			return d, nil
		}
	}
	d, err := p.evaluateTool(ctx, &in, st.eval)
	if err != nil {
		return denied, err
	}
	p.attribute(ctx, p.tool, &in, &d)
	if p.cache != nil {
		p.cache.put(key, d, &cachedCall{input: in, tool: true})
	}
	return d, nil
}

func (p *prepared) evaluateTool(ctx context.Context, in *Input, m metrics.Metrics) (Decision, error) {
	if p.wasm != nil {
		return p.evaluateToolWasm(ctx, in, m)
	}
	return p.evaluateToolTopdown(ctx, in, m)
}

// evaluateToolTopdown is evaluateTool on OPA's topdown evaluator.
func (p *prepared) evaluateToolTopdown(ctx context.Context, in *Input, m metrics.Metrics) (Decision, error) {
	cancel := topdown.NewCancel()
	stop := context.AfterFunc(ctx, cancel.Cancel)
	defer stop()
	rs, err := p.tool.Eval(ctx, evalOptions(in, cancel, m)...)
	if err != nil {
		return Decision{}, fmt.Errorf("evaluate tool gate %s: %w", p.revision, err)
	}
	d, err := parseToolResult(rs)
	if err != nil {
		return Decision{}, fmt.Errorf("policy %s: tool gate: %w", p.revision, err)
	}
	d.Revision, d.Digest = p.revision, p.digest
	if p.keepResult {
		d.result = rs[0].Expressions[0].Value
	}
	return d, nil
}

// parseToolResult reads {allow, code, reason}: an allow carries nothing
// else; a deny needs one of the policy's deny codes.
func parseToolResult(rs rego.ResultSet) (Decision, error) {
	object, err := decisionObject(rs)
	if err != nil {
		return Decision{}, err
	}
	return toolDecisionOf(readWireDecision(object))
}

// toolDecisionOf is a tool decision as read by either evaluator's reader.
func toolDecisionOf(wire wireDecision, err error) (Decision, error) {
	switch {
	case err != nil:
		return Decision{}, fmt.Errorf("malformed tool decision: %w", err)
	case wire.Allow == nil:
		return Decision{}, errors.New("malformed tool decision: allow is missing")
	case *wire.Allow:
		return Decision{Allow: true}, nil
	}
	return wire.toDenial()
}
