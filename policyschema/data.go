package policyschema

import _ "embed"

// Data is the JSON Schema of the policy's data (data.json): the gate
// validates every policy's data against it at load, so a misspelt member
// refuses the policy instead of being ignored.
//
//go:embed data.json
var Data []byte
