package devmeili

import (
	"bytes"
	"encoding/json"
	"net/http"
	"regexp"
)

// The write routes `wikigate ingest` uses (docs/backends.md, Meilisearch
// write side): they validate synchronously like the engine, apply the change at
// once and answer 202 with a task whose outcome GET /tasks/{uid} reports.
// Only the master key may write, as only it holds write actions here.
func (s *Server) writeRoutes(mux *http.ServeMux) {
	mux.HandleFunc("POST /indexes", s.guarded(actionMasterOnly, s.handleCreateIndex))
	mux.HandleFunc("GET /indexes/{uid}/settings", s.guarded(actionMasterOnly, s.handleGetSettings))
	mux.HandleFunc("PATCH /indexes/{uid}/settings", s.guarded(actionMasterOnly, s.handleUpdateSettings))
	mux.HandleFunc("POST /indexes/{uid}/documents", s.guarded(actionMasterOnly, s.handleAddDocuments))
	mux.HandleFunc("POST /indexes/{uid}/documents/delete-batch", s.guarded(actionMasterOnly, s.handleDeleteBatch))
	mux.HandleFunc("GET /tasks/{taskUid}", s.guarded(actionMasterOnly, s.handleGetTask))
	s.swapRoutes(mux)
}

var documentIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,511}$`)

func (s *Server) handleCreateIndex(w http.ResponseWriter, r *http.Request, _ credential) *apiError {
	body, err := readJSONBody(w, r, s.bodyLimit)
	if err != nil {
		return err
	}
	members, err := decodeObject(body)
	if err != nil {
		return err
	}
	uid, primaryKey := "", any(nil)
	for _, m := range members {
		switch m.key {
		case "uid":
			str, ok := m.value.(string)
			if !ok {
				return newError("invalid_index_uid", "Invalid value type at `.uid`: expected a string, but found %s", describeValue(m.value))
			}
			uid = str
		case "primaryKey":
			primaryKey = m.value
		default:
			return newError("bad_request", "Unknown field `%s`: expected one of `uid`, `primaryKey`", m.key)
		}
	}
	if uid == "" {
		return newError("missing_index_uid", "Missing field `uid`")
	}
	if !indexUIDPattern.MatchString(uid) {
		return errInvalidIndexUID(uid)
	}
	t := task{indexUID: uid, kind: "indexCreation", details: orderedObject{{"primaryKey", primaryKey}}}
	s.indexes.update(uid, func(old *index) *index {
		if old != nil {
			t.err = newError("index_already_exists", "Index `%s` already exists.", uid)
			return nil
		}
		return emptyIndex(uid, s.now().UTC().Truncate(1e9))
	})
	s.enqueue(w, t)
	return nil
}

// settingNames are the settings this server stores; others are refused so a
// client relying on one it does not implement finds out.
var settingNames = []string{"searchableAttributes", "displayedAttributes", "filterableAttributes",
	"sortableAttributes", "stopWords", "localizedAttributes", "distinctAttribute"}

func (s *Server) handleUpdateSettings(w http.ResponseWriter, r *http.Request, _ credential) *apiError {
	uid, body, err := s.readIndexWrite(w, r)
	if err != nil {
		return err
	}
	members, err := decodeObject(body)
	if err != nil {
		return err
	}
	var sent orderedObject
	for _, m := range members {
		if !contains(settingNames, m.key) {
			return newError("bad_request", "Unknown field `%s`: expected one of %s", m.key, quotedList(settingNames))
		}
		sent = append(sent, field{m.key, m.value})
	}
	s.indexes.update(uid, func(old *index) *index {
		if old == nil {
			old = emptyIndex(uid, s.now().UTC().Truncate(1e9))
		}
		next, _ := old.withChanges(nil, nil)
		next.settings = mergeSettings(old.settings, sent)
		return next
	})
	s.enqueue(w, task{indexUID: uid, kind: "settingsUpdate", details: sent})
	return nil
}

// mergeSettings applies a partial update: fields sent replace stored ones.
func mergeSettings(old, sent orderedObject) orderedObject {
	out := orderedObject{}
	for _, f := range old {
		if _, ok := sent.get(f.name); !ok {
			out = append(out, f)
		}
	}
	return append(out, sent...)
}

// handleGetSettings answers the stored settings over the fixed defaults the
// search code uses.
func (s *Server) handleGetSettings(w http.ResponseWriter, r *http.Request, _ credential) *apiError {
	ix, err := s.lookupIndex(r.PathValue("uid"))
	if err != nil {
		return err
	}
	defaults := orderedObject{
		{"displayedAttributes", []string{"*"}}, {"searchableAttributes", searchableAttributes},
		{"filterableAttributes", filterableAttributes}, {"sortableAttributes", []string{}},
		{"stopWords", []string{}}, {"distinctAttribute", nil},
	}
	writeJSON(w, http.StatusOK, mergeSettings(defaults, ix.settings))
	return nil
}

func (s *Server) handleAddDocuments(w http.ResponseWriter, r *http.Request, _ credential) *apiError {
	uid, body, err := s.readIndexWrite(w, r)
	if err != nil {
		return err
	}
	docs, err := decodeDocuments(body)
	if err != nil {
		return err
	}
	t := task{indexUID: uid, kind: "documentAdditionOrUpdate"}
	t.err = checkDocumentIDs(docs)
	indexed := 0
	if t.err == nil {
		indexed = len(docs)
		s.indexes.update(uid, func(old *index) *index {
			if old == nil {
				old = emptyIndex(uid, s.now().UTC().Truncate(1e9))
			}
			next, _ := old.withChanges(docs, nil)
			return next
		})
	}
	t.details = orderedObject{{"receivedDocuments", len(docs)}, {"indexedDocuments", indexed}}
	s.enqueue(w, t)
	return nil
}

// checkDocumentIDs fails the whole payload on one bad id, as the engine's
// task does (docs/backends.md, Meilisearch wire details: Tasks).
func checkDocumentIDs(docs []orderedObject) *apiError {
	for _, d := range docs {
		v, ok := d.get("id")
		if !ok {
			return newError("missing_document_id", "Document doesn't have a `id` attribute: `%s`.", jsonText(d))
		}
		if id, _ := v.(string); !documentIDPattern.MatchString(id) {
			return newError("invalid_document_id", "Document identifier `%s` is invalid. A document identifier can be of type integer or string, only composed of alphanumeric characters (a-z A-Z 0-9), hyphens (-) and underscores (_), and can not be more than 511 bytes.", jsonText(v))
		}
	}
	return nil
}

func (s *Server) handleDeleteBatch(w http.ResponseWriter, r *http.Request, _ credential) *apiError {
	uid, body, err := s.readIndexWrite(w, r)
	if err != nil {
		return err
	}
	var raw any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if derr := dec.Decode(&raw); derr != nil {
		return newError("malformed_payload", "The json payload provided is malformed. `%v`.", derr)
	}
	ids, err := asIDList(raw, location{name: "", codePrefix: "invalid_document_"})
	if err != nil {
		return newError("bad_request", "Invalid value type: expected an array, but found %s", describeValue(raw))
	}
	t := task{indexUID: uid, kind: "documentDeletion"}
	deleted := 0
	s.indexes.update(uid, func(old *index) *index {
		if old == nil {
			t.err = errIndexNotFound(uid)
			return nil
		}
		next, n := old.withChanges(nil, ids)
		deleted = n
		return next
	})
	t.details = orderedObject{{"providedIds", len(ids)}, {"deletedDocuments", deleted}}
	s.enqueue(w, t)
	return nil
}

// readIndexWrite is the start of every write to an index: a valid uid from
// the path and the JSON body, within the body limit.
func (s *Server) readIndexWrite(w http.ResponseWriter, r *http.Request) (string, []byte, *apiError) {
	uid := r.PathValue("uid")
	if !indexUIDPattern.MatchString(uid) {
		return "", nil, errInvalidIndexUID(uid)
	}
	body, err := readJSONBody(w, r, s.bodyLimit)
	if err != nil {
		return "", nil, err
	}
	return uid, body, nil
}
