// Package feedback stores feedback records and improvement tasks durably,
// idempotently and de-duplicated (protocol §8.1).
package feedback

import _ "go.etcd.io/bbolt" // durable embedded store
