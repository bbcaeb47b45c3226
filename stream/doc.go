// Package stream writes answers as server-sent events (docs/docs-sites.md,
// "Streaming"): the event names and payloads, a writer that frames and
// flushes each event and keeps a silent stream alive with comments, and the
// per-caller limit on open streams. It knows nothing of policies or
// backends: the gateway decides what is sent, this package only how.
package stream
