package policies

import "github.com/wikigate/wikigate/protocol"

// WireDecision is a Decision in the policy's own JSON shape (the object
// data.wikigate.decision returns), as decision-log events record it and
// replay compares it. A deny carries only allow, code and reason.
type WireDecision struct {
	Allow        bool                `json:"allow"`
	Code         string              `json:"code,omitempty"`
	Reason       string              `json:"reason,omitempty"`
	Scope        *protocol.Scope     `json:"scope,omitempty"`
	ProjectPaths map[string][]string `json:"project_paths,omitempty"`
	Datasets     []Dataset           `json:"datasets,omitempty"`
	Index        string              `json:"index,omitempty"`
	Write        bool                `json:"write,omitempty"`
	WriteTools   []string            `json:"write_tools,omitempty"`
	Pages        []string            `json:"pages,omitempty"`
	Limits       []Limit             `json:"limits,omitempty"`
}

// WireOf is d as the policy wrote it.
func WireOf(d Decision) WireDecision {
	if !d.Allow {
		return WireDecision{Code: string(d.Code), Reason: d.Reason}
	}
	scope := d.Scope
	return WireDecision{Allow: true, Scope: &scope, ProjectPaths: d.Scope.ProjectPaths, Datasets: d.Datasets,
		Index: d.Index, Write: d.Write, WriteTools: d.WriteTools, Pages: d.Pages, Limits: d.Limits}
}
