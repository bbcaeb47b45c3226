// Package policyschema holds the JSON Schemas of the policy's input, its
// decision and its data (input.json, decision.json, data.json beside this
// file). They describe what the gate builds and reads, so they are
// compiled into the gate: every policy it loads, from a folder or from a
// bundle, is type-checked against input.json by OPA's compiler (a
// reference to a field the gate never sends, input.scope.paht, refuses the
// policy at load) and its data is validated against data.json.
//
// They live outside the policy folder (rego/), so OPA's own tools read that
// folder as the gate does: `opa test rego`, `opa check rego`, `opa eval -d
// rego` with no --ignore, and `--schema policyschema/input.json` to type
// check as the gate does (rego/README.md, Testing).
package policyschema

import (
	_ "embed"
)

// Input is the JSON Schema of the policy's input.
//
//go:embed input.json
var Input []byte

// Decision is the JSON Schema of data.wikigate.decision.
//
//go:embed decision.json
var Decision []byte
