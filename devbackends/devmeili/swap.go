package devmeili

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
)

// The routes of a zero-downtime rebuild (docs/backends.md, Meilisearch write
// side): build a new index, swap it with the live one, delete the old one.

func (s *Server) swapRoutes(mux *http.ServeMux) {
	mux.HandleFunc("POST /swap-indexes", s.guarded(actionMasterOnly, s.handleSwapIndexes))
	mux.HandleFunc("DELETE /indexes/{uid}", s.guarded(actionMasterOnly, s.handleDeleteIndex))
}

// swapPair is one {"indexes":[a,b],"rename":bool} of a swap request.
type swapPair struct {
	a, b   string
	rename bool
}

// handleSwapIndexes validates the pairs synchronously (400s, as the engine)
// and applies them all or none; a missing index fails the task.
func (s *Server) handleSwapIndexes(w http.ResponseWriter, r *http.Request, _ credential) *apiError {
	body, err := readJSONBody(w, r, s.bodyLimit)
	if err != nil {
		return err
	}
	pairs, err := decodeSwaps(body)
	if err != nil {
		return err
	}
	t := task{kind: "indexSwap", details: swapDetails(pairs)}
	t.err = s.indexes.swap(pairs)
	s.enqueue(w, t)
	return nil
}

func decodeSwaps(body []byte) ([]swapPair, *apiError) {
	var raw []map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(body))
	if dec.Decode(&raw) != nil {
		return nil, newError("bad_request", "Invalid value type: expected an array of swap operations")
	}
	seen := map[string]bool{}
	var out []swapPair
	for i, op := range raw {
		rawIdx, ok := op["indexes"]
		if !ok {
			return nil, newError("missing_swap_indexes", "Missing field `indexes` at `[%d]`", i)
		}
		var uids []string
		if json.Unmarshal(rawIdx, &uids) != nil {
			return nil, newError("invalid_swap_indexes", "Invalid value type at `[%d].indexes`: expected an array of index uids", i)
		}
		if len(uids) != 2 {
			list, _ := json.Marshal(uids)
			return nil, newError("invalid_swap_indexes", "Two indexes must be given for each swap. The list `%s` contains %d indexes.",
				list, len(uids))
		}
		p := swapPair{a: uids[0], b: uids[1]}
		if rr, has := op["rename"]; has && json.Unmarshal(rr, &p.rename) != nil {
			return nil, newError("invalid_swap_rename", "Invalid value type at `[%d].rename`: expected a boolean", i)
		}
		for _, uid := range uids {
			if seen[uid] {
				return nil, newError("invalid_swap_duplicate_index_found",
					"Indexes must be declared only once during a swap. `%s` was specified several times.", uid)
			}
			seen[uid] = true
		}
		out = append(out, p)
	}
	return out, nil
}

func swapDetails(pairs []swapPair) orderedObject {
	swaps := make([]orderedObject, len(pairs))
	for i, p := range pairs {
		swaps[i] = orderedObject{{"indexes", []string{p.a, p.b}}, {"rename", p.rename}}
	}
	return orderedObject{{"swaps", swaps}}
}

// handleDeleteIndex deletes an index and its documents.
func (s *Server) handleDeleteIndex(w http.ResponseWriter, r *http.Request, _ credential) *apiError {
	uid := r.PathValue("uid")
	if !indexUIDPattern.MatchString(uid) {
		return errInvalidIndexUID(uid)
	}
	t := task{indexUID: uid, kind: "indexDeletion"}
	n, ok := s.indexes.remove(uid)
	if !ok {
		t.err = errIndexNotFound(uid)
	}
	t.details = orderedObject{{"deletedDocuments", n}}
	s.enqueue(w, t)
	return nil
}

// swap exchanges (or renames) every pair at once, or none when an index is
// missing or a rename target exists.
func (st *indexStore) swap(pairs []swapPair) *apiError {
	st.mu.Lock()
	defer st.mu.Unlock()
	old := *st.current.Load()
	var missing []string
	for _, p := range pairs {
		for _, uid := range []string{p.a, p.b} {
			if _, ok := old[uid]; !ok && !(p.rename && uid == p.b) {
				missing = append(missing, "`"+uid+"`")
			}
		}
		if _, taken := old[p.b]; p.rename && taken {
			return newError("index_already_exists",
				"Cannot rename `%s` to `%s` as the index already exists. Hint: You can remove `%s` first and then do your remove.", p.a, p.b, p.b)
		}
	}
	if len(missing) > 0 {
		return newError("index_not_found", "Indexes %s not found.", strings.Join(missing, ", "))
	}
	next := make(map[string]*index, len(old))
	for k, v := range old {
		next[k] = v
	}
	for _, p := range pairs {
		a, b := old[p.a], old[p.b]
		if p.rename {
			delete(next, p.a)
			next[p.b] = a.renamed(p.b)
			continue
		}
		next[p.a], next[p.b] = b.renamed(p.a), a.renamed(p.b)
	}
	st.current.Store(&next)
	return nil
}

// remove deletes uid and says how many documents it held.
func (st *indexStore) remove(uid string) (int, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	old := *st.current.Load()
	ix, ok := old[uid]
	if !ok {
		return 0, false
	}
	next := make(map[string]*index, len(old))
	for k, v := range old {
		if k != uid {
			next[k] = v
		}
	}
	st.current.Store(&next)
	return len(ix.docs), true
}

// renamed is a copy of ix under another uid (documents, settings and
// creation date move with it, as a swap moves them).
func (ix *index) renamed(uid string) *index {
	c := *ix
	c.uid = uid
	return &c
}
