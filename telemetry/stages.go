package telemetry

import (
	"errors"

	"go.opentelemetry.io/otel/attribute"
)

// The gate's own attributes, under the wikigate. namespace.
const (
	AttrRequestID      = attribute.Key("wikigate.request_id")
	AttrCallerType     = attribute.Key("wikigate.caller.type")
	AttrCredential     = attribute.Key("wikigate.credential")
	AttrPolicyRevision = attribute.Key("wikigate.policy.revision")
	AttrAllow          = attribute.Key("wikigate.decision.allow")
	AttrCode           = attribute.Key("wikigate.decision.code")
	AttrToolGateAllow  = attribute.Key("wikigate.tool_gate.allow")
	AttrToolGateCode   = attribute.Key("wikigate.tool_gate.code")
	AttrResult         = attribute.Key("wikigate.result")
	AttrCitations      = attribute.Key("wikigate.citations")
	AttrNoAnswer       = attribute.Key("wikigate.no_answer")
	AttrChunksKept     = attribute.Key("wikigate.chunks.kept")
	AttrChunksDropped  = attribute.Key("wikigate.chunks.dropped")
	AttrStatusCode     = attribute.Key("http.response.status_code")
	// AttrLastEventID is the Last-Event-ID a stream resume asked to resume after.
	AttrLastEventID = attribute.Key("wikigate.stream.last_event_id")
)

// Stage names (docs/operators.md, Tracing).
const (
	StageAuthenticate  = "wikigate.authenticate"
	StageToolGate      = "wikigate.tool_gate"
	StageDecide        = "wikigate.decide"
	StageVerify        = "wikigate.verify"
	StageResponseCheck = "wikigate.response_check"
	StageAudit         = "wikigate.audit"
)

// EndAuth ends the authenticate stage. It records nothing: who was
// recognized (the caller's type and credential kind, never its id or
// credential) goes on the call's span when the call ends (EndCallAs), from
// the audit record, so that every door (the HTTP routes, a session read
// back, a stream resume, MCP) records it the same way and once.
func EndAuth(s Span, callerType, credential string, err error) {}

// EndDecision ends the tool gate or decide stage with the policy's answer
// and the revision that gave it. code is the deny code ("" on allow). The
// tool gate's answer has its own keys (wikigate.tool_gate.*), so the
// decide stage's wikigate.decision.* is the call's decision.
func EndDecision(s Span, allow bool, code, revision string) {
	if !s.Recording() {
		return
	}
	allowKey, codeKey := AttrAllow, AttrCode
	if s.stage == StageToolGate {
		allowKey, codeKey = AttrToolGateAllow, AttrToolGateCode
	}
	if code != "" {
		s.Set(allowKey.Bool(allow), AttrPolicyRevision.String(revision), codeKey.String(code))
	} else {
		s.Set(allowKey.Bool(allow), AttrPolicyRevision.String(revision))
	}
	s.End()
}

// EndResponseCheck ends the response-side scope check's stage: how many
// retrieved chunks were in the decided scope and how many were dropped.
func EndResponseCheck(s Span, kept, dropped int) {
	if !s.Recording() {
		return
	}
	s.Set(AttrChunksKept.Int(kept), AttrChunksDropped.Int(dropped))
	s.End()
}

// EndVerify ends the verification stage with its counts: the citations
// kept, and whether the answer became a no-answer.
func EndVerify(s Span, citations int, noAnswer bool) {
	if !s.Recording() {
		return
	}
	s.Set(AttrCitations.Int(citations), AttrNoAnswer.Bool(noAnswer))
	s.End()
}

// EndCallAs ends a call's server span with how the call ended, as its
// audit record says (a status of 500 or more marks it failed), and with the
// caller the call authenticated, when it got that far: its type and
// credential kind ("" for neither).
func EndCallAs(s Span, callerType, credential string, status int, result string) {
	if !s.Recording() {
		return
	}
	if callerType != "" {
		s.Set(AttrCallerType.String(callerType), AttrCredential.String(credential))
	}
	s.Set(AttrStatusCode.Int(status), AttrResult.String(result))
	if status >= 500 {
		s.Fail(errors.New(result), result)
	}
	s.End()
}
