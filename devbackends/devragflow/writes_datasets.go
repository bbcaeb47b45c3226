package devragflow

import (
	"net/http"
	"sort"
	"strings"
	"unicode/utf8"
)

// createDatasetFields are CreateDatasetReq's keys; the model forbids others.
var createDatasetFields = map[string]bool{
	"name": true, "avatar": true, "description": true, "embedding_model": true, "permission": true,
	"chunk_method": true, "parser_config": true, "parse_type": true, "pipeline_id": true,
	"auto_metadata_config": true, "ext": true,
}

// chunkMethods are the values CreateDatasetReq accepts for chunk_method.
var chunkMethods = []string{"naive", "book", "email", "laws", "manual", "one", "paper", "picture",
	"presentation", "qa", "table", "tag", "resume"}

// handleCreateDataset is POST /api/v1/datasets (docs/backends.md, RAGFlow
// write side): a strict JSON body, validated as the pydantic model does for
// the fields a loader sends; the new dataset, empty, in the list shape.
func (s *Server) handleCreateDataset(w http.ResponseWriter, r *http.Request, rec *LoggedRequest) {
	req, fail := readStrictJSON(w, r)
	if fail != nil {
		s.reply(w, rec, http.StatusOK, fail)
		return
	}
	name, errs := validateCreateDataset(req)
	if len(errs) > 0 {
		s.reply(w, rec, http.StatusOK, validationResult(codeArgument, errs))
		return
	}
	if em, ok := req["embedding_model"].(string); ok && em != "" && em != devEmbeddingModel {
		s.reply(w, rec, http.StatusOK, errorResult(codeData, "Unsupported model: <"+em+">"))
		return
	}
	ds := s.model.createDataset(name, s.now().UTC())
	rec.DatasetIDs = []string{ds.ID}
	s.reply(w, rec, http.StatusOK, result(s.datasetJSON(ds)))
}

// validateCreateDataset checks name, permission, chunk_method and unknown
// keys; it returns the stripped name and the error lines.
func validateCreateDataset(req map[string]any) (string, []string) {
	var errs []string
	var keys []string
	for k := range req {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !createDatasetFields[k] {
			errs = append(errs, fieldError(k, "Extra inputs are not permitted", req[k]))
		}
	}
	raw, has := req["name"]
	name, isString := raw.(string)
	name = strings.TrimSpace(name)
	switch {
	case !has:
		errs = append(errs, fieldError("name", "Field required", req))
	case !isString:
		errs = append(errs, fieldError("name", "Input should be a valid string", raw))
	case name == "":
		errs = append(errs, fieldError("name", "String should have at least 1 character", raw))
	case utf8.RuneCountInString(name) > 128:
		errs = append(errs, fieldError("name", "String should have at most 128 characters", raw))
	}
	if p, has := req["permission"]; has && p != "me" && p != "team" {
		errs = append(errs, fieldError("permission", "Input should be 'me' or 'team'", p))
	}
	if cm, has := req["chunk_method"]; has {
		if s, ok := cm.(string); !ok || !containsString(chunkMethods, s) {
			errs = append(errs, fieldError("chunk_method", "Input should be "+pyChoice(chunkMethods), cm))
		}
	}
	return name, errs
}

// pyChoice is pydantic's "'a', 'b' or 'c'".
func pyChoice(vals []string) string {
	quoted := make([]string, len(vals))
	for i, v := range vals {
		quoted[i] = "'" + v + "'"
	}
	return strings.Join(quoted[:len(quoted)-1], ", ") + " or " + quoted[len(quoted)-1]
}
