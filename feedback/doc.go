// Package feedback stores feedback records and improvement tasks durably,
// idempotently and de-duplicated (docs/protocol.md, Results: FeedbackResult),
// and can mirror them to GitHub Issues.
//
// Why each property:
//   - Durable: a knowledge gap reported today must still be there after a
//     restart, so records live in a bbolt file, one writer process at a time
//     (the file lock makes a second process fail fast instead of corrupting).
//   - De-duplicated: the same gap reported by many callers is one record with
//     a count, each caller's type and time kept, keyed by dedupe.Key, which
//     holds no plaintext. create_feedback and create_improvement_task are
//     separate record spaces. A closed record stays closed: the next
//     occurrence opens a new one.
//   - Idempotent: a client retrying with the same idempotency key gets the
//     first response byte for byte and creates nothing; the same key with a
//     different body is refused. Keys are scoped to caller and tool and
//     expire (24h by default).
//
// All of it happens in one bbolt read-write transaction per submission;
// bbolt runs one writer at a time, so concurrent identical submissions
// merge into one record instead of racing. For several gates, pgstore
// keeps the same records in PostgreSQL with the same semantics; the
// gateway sees either through Submitter.
//
// The optional Sink (GitHubSink) is an outbox: a submission commits locally
// with its occurrence pending and returns at once; a background loop (woken
// by each submission, and every SyncInterval) tells the sink afterwards. A
// sink that is slow or down never slows, fails or loses a submission; the
// occurrence stays pending until a later round gets it through. The
// issue number is stored in the record, so a restart never opens a second
// issue for the same open record; an issue closed on GitHub closes the
// record and the next occurrence gets a new record and a new issue.
package feedback
