package mcp

import "net/http"

// removedMethods are the methods the stateless revision (2026-07-28)
// removed. The SDK refuses them with -32601 too, but logs each at error
// level with a stack trace: any client could fill the gate's error log
// (the conformance suite's server-stateless scenario sends all of them).
// The front answers them instead, as the SDK would, without logging.
var removedMethods = map[string]bool{
	"initialize": true, "ping": true, "logging/setLevel": true,
	"resources/subscribe": true, "resources/unsubscribe": true,
	"notifications/initialized": true, "notifications/roots/list_changed": true,
}

// refuseRemoved answers a stateless message of a removed method: a
// request is 404 with -32601 (SEP-2575), a notification is accepted and
// dropped (it gets no answer either way). It reports whether it answered.
func refuseRemoved(w http.ResponseWriter, msg *message) bool {
	if !removedMethods[msg.Method] {
		return false
	}
	if msg.ID == nil {
		w.WriteHeader(http.StatusAccepted)
		return true
	}
	ref := refuse(http.StatusNotFound, codeMethodNotFound, `"`+msg.Method+`" is not supported in the new protocol`)
	ref.id = msg.ID
	writeRefusal(w, ref, nil)
	return true
}

// codeMethodNotFound is JSON-RPC's code for a method the server does not offer.
const codeMethodNotFound = -32601
