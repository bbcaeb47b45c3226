package devmeili

import (
	"sync"
	"sync/atomic"
	"time"
)

// indexStore holds the server's indexes copy-on-write: readers (search,
// documents) load one immutable map and keep using the *index they found for
// the whole request, while writers build a new index and swap the map in
// under a mutex. A search therefore never sees half of an ingest batch.
type indexStore struct {
	mu      sync.Mutex // serialises writers
	current atomic.Pointer[map[string]*index]
}

// newIndexStore holds first, or no index when first is nil.
func newIndexStore(first *index) *indexStore {
	st := &indexStore{}
	m := map[string]*index{}
	if first != nil {
		m[first.uid] = first
	}
	st.current.Store(&m)
	return st
}

func (st *indexStore) get(uid string) (*index, bool) {
	ix, ok := (*st.current.Load())[uid]
	return ix, ok
}

// update runs fn on the index named uid (nil when it does not exist) and
// stores what fn returns; fn returning nil leaves the map unchanged.
func (st *indexStore) update(uid string, fn func(old *index) *index) {
	st.mu.Lock()
	defer st.mu.Unlock()
	old := *st.current.Load()
	ix := fn(old[uid])
	if ix == nil {
		return
	}
	next := make(map[string]*index, len(old)+1)
	for k, v := range old {
		next[k] = v
	}
	next[uid] = ix
	st.current.Store(&next)
}

// emptyIndex is a new index without documents.
func emptyIndex(uid string, created time.Time) *index {
	return &index{uid: uid, byID: map[string]int{}, createdAt: created}
}

// withChanges returns a copy of ix with put documents added or replaced
// (by id, keeping an existing document's position) and del ids removed.
func (ix *index) withChanges(put []orderedObject, del []string) (*index, int) {
	out := &index{uid: ix.uid, byID: map[string]int{}, createdAt: ix.createdAt, settings: ix.settings}
	replaced := map[string]orderedObject{}
	for _, d := range put {
		replaced[docID(d)] = d
	}
	gone := map[string]bool{}
	for _, id := range del {
		gone[id] = true
	}
	deleted := 0
	for i, d := range ix.docs {
		id := docID(d)
		switch {
		case gone[id]:
			deleted++
			continue
		case replaced[id] != nil:
			out.appendDoc(replaced[id])
			delete(replaced, id)
		default:
			out.appendIndexed(d, ix.words[i])
		}
	}
	for _, d := range put {
		if nd, ok := replaced[docID(d)]; ok {
			out.appendDoc(nd)
			delete(replaced, docID(d))
		}
	}
	return out, deleted
}

func (ix *index) appendDoc(d orderedObject) { ix.appendIndexed(d, indexWords(d)) }

// appendIndexed adds a document whose words are already computed, so a
// write does not re-tokenise the documents it keeps.
func (ix *index) appendIndexed(d orderedObject, w docWords) {
	ix.byID[docID(d)] = len(ix.docs)
	ix.docs = append(ix.docs, d)
	ix.words = append(ix.words, w)
}

func docID(d orderedObject) string {
	v, _ := d.get("id")
	s, _ := v.(string)
	return s
}
