// Package schema holds the JSON Schemas of the policy's input and decision
// (input.json, decision.json beside this file). They describe what the gate
// builds and reads, so they are compiled into the gate: every policy it
// loads, from this folder or from a bundle, is type-checked against
// input.json by OPA's compiler, and a reference to a field the gate never
// sends (input.scope.paht) refuses the policy at load. The same files serve
// OPA's own tools (`opa eval --schema rego/schema/input.json`, rego/README.md).
//
// This folder is not policy data: loaders of the policy folder skip it
// (Exclude), or its files would be loaded as data.schema.
package schema

import (
	_ "embed"
	"io/fs"
)

// Dir is this folder's name inside the policy folder.
const Dir = "schema"

// Input is the JSON Schema of the policy's input.
//
//go:embed input.json
var Input []byte

// Decision is the JSON Schema of data.wikigate.decision.
//
//go:embed decision.json
var Decision []byte

// Exclude is an OPA loader filter (loader.Filter: true leaves the entry
// out) that skips a schema folder below the loaded root; callers that
// filter more (tests) combine it with their own.
func Exclude(_ string, info fs.FileInfo, depth int) bool {
	return info.IsDir() && info.Name() == Dir && depth >= 1
}
