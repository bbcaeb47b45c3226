// Package policyreplay re-evaluates recorded policy decisions against a
// candidate policy (`wikigate policy replay`) and explains one decision
// (`wikigate policy explain`), so the security team sees what a policy
// change would break before it ships.
package policyreplay

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"github.com/wikigate/wikigate/policies"
)

// Recorded is one decision read back from a decision log: the OPA event
// (the gate's decision_log lines, or OPA's own) whose path is one of the
// gate's two queries.
type Recorded struct {
	Line       int
	DecisionID string                 `json:"decision_id"`
	Path       string                 `json:"path"`
	Input      json.RawMessage        `json:"input"`
	Result     *policies.WireDecision `json:"result"`
	Error      string                 `json:"error"`
	Erased     []string               `json:"erased"`
	Bundles    map[string]struct {
		Revision string `json:"revision"`
	} `json:"bundles"`
}

// ReadEvents reads the decision events of a JSON-lines log; other lines
// (audit records, the gate's other logs in the same file) are skipped and
// counted.
func ReadEvents(r io.Reader) (events []Recorded, skipped int, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		var ev Recorded
		if json.Unmarshal(sc.Bytes(), &ev) != nil || !isGatePath(ev.Path) || len(ev.Input) == 0 {
			skipped++
			continue
		}
		ev.Line = n
		events = append(events, ev)
	}
	if err := sc.Err(); err != nil {
		return nil, 0, err
	}
	return events, skipped, nil
}

func isGatePath(p string) bool {
	return p == policies.PathDecision || p == policies.PathToolDecision
}

// input decodes the event's input as the gate built it.
func (ev *Recorded) input() (policies.Input, error) {
	var in policies.Input
	if err := json.Unmarshal(ev.Input, &in); err != nil {
		if ev.Line == 0 { // --input: a file of its own, not a log line
			return in, fmt.Errorf("input: %w", err)
		}
		return in, fmt.Errorf("line %d: input: %w", ev.Line, err)
	}
	return in, nil
}
