package mcp

import (
	"context"
	"sync"
	"sync/atomic"

	json "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// eventStore is the SDK's in-memory event store (resumable 2025-11-25
// streams: docs/agents.md "MCP"), except that the response to a cancelled call is
// not kept: the SDK stores every response before it delivers it, so a
// client resuming the stream of a call it cancelled would be replayed the
// response it must not get. sdkWriter drops it from the live stream.
type eventStore struct {
	*mcpsdk.MemoryEventStore
	cancelled sync.Map     // sessionID + "\x00" + compact request id
	pending   atomic.Int64 // entries in cancelled: Append parses nothing while 0
}

func newEventStore() *eventStore {
	return &eventStore{MemoryEventStore: mcpsdk.NewMemoryEventStore(nil)}
}

// drop makes the store forget the response to request id of session
// sessionID when the SDK appends it.
func (s *eventStore) drop(sessionID string, id jsontext.Value) {
	if _, loaded := s.cancelled.LoadOrStore(cancelKey(sessionID, id), struct{}{}); !loaded {
		s.pending.Add(1)
	}
}

func (s *eventStore) Append(ctx context.Context, sessionID, streamID string, data []byte) error {
	if s.pending.Load() > 0 && data != nil {
		var msg struct {
			ID     jsontext.Value `json:"id"`
			Result jsontext.Value `json:"result"`
			Error  jsontext.Value `json:"error"`
		}
		if json.Unmarshal(data, &msg) == nil && msg.ID != nil && (msg.Result != nil || msg.Error != nil) {
			if _, ok := s.cancelled.LoadAndDelete(cancelKey(sessionID, msg.ID)); ok {
				s.pending.Add(-1)
				return nil // not kept; the stream is done with this response
			}
		}
	}
	return s.MemoryEventStore.Append(ctx, sessionID, streamID, data)
}

// SessionClosed also forgets the session's cancelled requests whose
// responses never came.
func (s *eventStore) SessionClosed(ctx context.Context, sessionID string) error {
	prefix := sessionID + "\x00"
	s.cancelled.Range(func(k, _ any) bool {
		if key := k.(string); len(key) > len(prefix) && key[:len(prefix)] == prefix {
			if _, ok := s.cancelled.LoadAndDelete(key); ok {
				s.pending.Add(-1)
			}
		}
		return true
	})
	return s.MemoryEventStore.SessionClosed(ctx, sessionID)
}

// cancelKey names a request of a session, its id compacted so that the
// client's spelling and the SDK's encoding compare equal.
func cancelKey(sessionID string, id jsontext.Value) string {
	v := id.Clone()
	_ = v.Compact() // an id that is not JSON is kept as it is
	return sessionID + "\x00" + string(v)
}
