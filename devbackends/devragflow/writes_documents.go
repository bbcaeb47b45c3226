package devragflow

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"path"
	"strings"
	"unicode/utf8"
)

// maxUploadBytes caps one upload request (RAGFlow's default is 1 GiB; a
// development server keeps everything in memory).
const maxUploadBytes = 32 << 20

// uploadTypes are the extensions stored as text; RAGFlow accepts more
// (PDF, Office, images), which the development parser could not read.
var uploadTypes = map[string]bool{"md": true, "mdx": true, "txt": true, "html": true, "htm": true,
	"json": true, "jsonl": true, "csv": true, "xml": true, "yml": true, "ini": true}

// handleUpload is POST /api/v1/datasets/{id}/documents (docs/backends.md,
// RAGFlow write side): multipart "file" parts, each stored unparsed; per-file
// failures are collected, and a partial success still lists the stored
// documents.
func (s *Server) handleUpload(w http.ResponseWriter, r *http.Request, rec *LoggedRequest) {
	id := r.PathValue("dataset_id")
	rec.DatasetIDs = []string{id}
	ds := s.model.byDataset[id]
	if ds == nil {
		s.reply(w, rec, http.StatusOK, errorResult(codeData, "Can't find the dataset with ID "+id+"!"))
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxUploadBytes)
	if err := r.ParseMultipartForm(maxUploadBytes); err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			s.reply(w, rec, http.StatusOK, exceptionResult("<RequestEntityTooLarge '413: Request Entity Too Large'>"))
			return
		}
	}
	var files []*multipart.FileHeader
	if r.MultipartForm != nil {
		files = r.MultipartForm.File["file"]
	}
	if body := checkFileNames(files); body != nil {
		s.reply(w, rec, http.StatusOK, body)
		return
	}
	var docs []any
	var errs []string
	for _, fh := range files {
		doc, err := s.storeUpload(ds, fh)
		if err != nil {
			errs = append(errs, fh.Filename+": "+err.Error())
			continue
		}
		docs = append(docs, s.uploadedJSON(doc))
	}
	switch {
	case len(errs) == 0:
		s.reply(w, rec, http.StatusOK, result(docs))
	case len(docs) == 0:
		s.reply(w, rec, http.StatusOK, errorResult(500, strings.Join(errs, "\n")))
	default:
		s.reply(w, rec, http.StatusOK, jsonResult(500, strings.Join(errs, "\n"), docs))
	}
}

func checkFileNames(files []*multipart.FileHeader) map[string]any {
	if len(files) == 0 {
		return errorResult(codeArgument, "No file part!")
	}
	for _, fh := range files {
		if fh.Filename == "" {
			return errorResult(codeArgument, "No file selected!")
		}
		if len(fh.Filename) > 255 {
			return errorResult(codeArgument, "File name must be 255 bytes or less.")
		}
	}
	return nil
}

func (s *Server) storeUpload(ds *dataset, fh *multipart.FileHeader) (*document, error) {
	ext := strings.ToLower(strings.TrimPrefix(path.Ext(fh.Filename), "."))
	if !uploadTypes[ext] {
		//lint:ignore ST1005 RAGFlow's own message, which clients see in the reply
		return nil, errors.New("This type of file has not been supported yet!")
	}
	f, err := fh.Open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	raw, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	if !utf8.Valid(raw) {
		return nil, errors.New("the development parser reads UTF-8 text only")
	}
	return s.model.uploadDocument(ds, fh.Filename, string(raw), s.now().UTC()), nil
}

// uploadedJSON is map_doc_keys_with_run_status(doc, "0"): the inserted row,
// without the counters the list adds. content_hash here is a SHA-256 prefix
// of the bytes, not RAGFlow's xxh128: nothing should compare it across
// servers (a loader keeps its own hash in meta_fields, docs/backends.md,
// RAGFlow write side).
func (s *Server) uploadedJSON(d *document) map[string]any {
	return map[string]any{
		"id": d.id, "dataset_id": d.dataset.ID, "name": d.name, "chunk_method": "naive", "pipeline_id": nil,
		"parser_config": parserConfig(), "created_by": s.model.tenantID, "type": "doc", "source_type": "local",
		"suffix": strings.TrimPrefix(path.Ext(d.name), "."), "location": d.name, "size": len(d.page.Content),
		"thumbnail": "", "content_hash": stableID("content", d.page.Content), "run": d.run,
	}
}

// documentInDataset resolves {dataset_id}/{document_id} for the update
// route, with its messages (docs/backends.md, RAGFlow write side).
func (s *Server) documentInDataset(r *http.Request) (*document, map[string]any) {
	ds := s.model.byDataset[r.PathValue("dataset_id")]
	if ds == nil {
		return nil, errorResult(codeData, "you don't own the dataset")
	}
	doc := s.model.byDoc[r.PathValue("document_id")]
	if doc == nil || doc.dataset != ds {
		return nil, errorResult(codeData, "the dataset doesn't own the document")
	}
	return doc, nil
}

// handleUpdateDocument is PATCH (or PUT) /api/v1/datasets/{id}/documents/
// {doc_id}: meta_fields replaces the document's metadata, visible to listings
// and retrieval at once, without a re-parse (docs/backends.md, RAGFlow write
// side).
func (s *Server) handleUpdateDocument(w http.ResponseWriter, r *http.Request, rec *LoggedRequest) {
	rec.DatasetIDs = []string{r.PathValue("dataset_id")}
	req, fail := readJSONObject(w, r)
	if fail != nil {
		s.reply(w, rec, http.StatusOK, fail)
		return
	}
	doc, fail := s.documentInDataset(r)
	if fail != nil {
		s.reply(w, rec, http.StatusOK, fail)
		return
	}
	for _, k := range []string{"name", "chunk_method", "parser_config", "pipeline_id", "enabled"} {
		if v, has := req[k]; has && !(k == "name" && v == doc.name) {
			s.reply(w, rec, http.StatusOK, errorResult(codeData,
				"the development RAGFlow updates meta_fields only; `"+k+"` is not implemented"))
			return
		}
	}
	if raw, has := req["meta_fields"]; has {
		meta, msg := validMetaFields(raw)
		if msg != "" {
			s.reply(w, rec, http.StatusOK, errorResult(codeData, fieldError("meta_fields", msg, raw)))
			return
		}
		doc.meta = meta
	}
	s.reply(w, rec, http.StatusOK, result(s.documentJSON(doc)))
}

// validMetaFields is validate_document_meta_fields plus the list rewriting
// of _split_combined_values (docs/backends.md, RAGFlow write side).
func validMetaFields(raw any) (map[string]any, string) {
	obj, ok := raw.(map[string]any)
	if !ok {
		return nil, "Input should be a valid dictionary"
	}
	out := map[string]any{}
	for k, v := range obj {
		switch x := v.(type) {
		case string, bool:
			out[k] = x
		case []any:
			list, ok := splitCombined(x)
			if !ok {
				return nil, "The type is not supported in list: " + pyRepr(x)
			}
			out[k] = list
		default:
			if _, num := v.(json.Number); !num {
				return nil, "The type is not supported: " + pyRepr(v)
			}
			out[k] = v
		}
	}
	return out, ""
}

// splitCombined splits string items on RAGFlow's separators and drops
// repeats; a list holding anything but scalars is refused.
func splitCombined(list []any) ([]any, bool) {
	out := []any{}
	seen := map[string]bool{}
	for _, item := range list {
		switch x := item.(type) {
		case string:
			for _, part := range strings.FieldsFunc(x, func(r rune) bool { return strings.ContainsRune("、,，;；|", r) }) {
				if part = strings.TrimSpace(part); part != "" && !seen[part] {
					seen[part] = true
					out = append(out, part)
				}
			}
		case bool:
			out = append(out, x)
		default:
			if _, num := item.(json.Number); !num {
				return nil, false
			}
			out = append(out, item)
		}
	}
	return out, true
}

// handleParse is POST /api/v1/datasets/{id}/chunks (docs/backends.md, RAGFlow
// write side): every known id is parsed, in order; unknown ones are reported
// after.
func (s *Server) handleParse(w http.ResponseWriter, r *http.Request, rec *LoggedRequest) {
	s.parse(w, r, rec, false)
}

// handleParseDocuments is POST /api/v1/datasets/{id}/documents/parse
// (docs/backends.md, RAGFlow write side): the same, answering with
// success_count.
func (s *Server) handleParseDocuments(w http.ResponseWriter, r *http.Request, rec *LoggedRequest) {
	s.parse(w, r, rec, true)
}

func (s *Server) parse(w http.ResponseWriter, r *http.Request, rec *LoggedRequest, counted bool) {
	id := r.PathValue("dataset_id")
	rec.DatasetIDs = []string{id}
	req, fail := readJSONObject(w, r)
	if fail != nil {
		s.reply(w, rec, http.StatusOK, fail)
		return
	}
	ds := s.model.byDataset[id]
	if ds == nil {
		s.reply(w, rec, http.StatusOK, errorResult(codeData, fmt.Sprintf("You don't own the dataset %s.", id)))
		return
	}
	ids, ok := req["document_ids"].([]any)
	if !ok || len(ids) == 0 {
		s.reply(w, rec, http.StatusOK, errorResult(codeData, "`document_ids` is required"))
		return
	}
	var missing []any
	var docs []*document
	seen := map[string]bool{}
	for _, raw := range ids {
		docID, _ := raw.(string)
		doc := s.model.byDoc[docID]
		switch {
		case doc == nil || doc.dataset != ds:
			missing = append(missing, raw)
		case !seen[docID]:
			seen[docID] = true
			docs = append(docs, doc)
		}
	}
	s.model.parseDocuments(docs)
	parsed := len(docs)
	switch {
	case len(missing) > 0:
		s.reply(w, rec, http.StatusOK, errorResult(codeData, "Documents not found: "+pyRepr(missing)))
	case counted:
		s.reply(w, rec, http.StatusOK, result(map[string]any{"success_count": parsed}))
	default:
		s.reply(w, rec, http.StatusOK, result(nil))
	}
}

// handleDeleteDocuments is DELETE /api/v1/datasets/{id}/documents
// (docs/backends.md, RAGFlow "Write side"): all ids are checked first; one
// unknown id deletes nothing.
func (s *Server) handleDeleteDocuments(w http.ResponseWriter, r *http.Request, rec *LoggedRequest) {
	id := r.PathValue("dataset_id")
	rec.DatasetIDs = []string{id}
	req, fail := readStrictJSON(w, r)
	if fail != nil {
		s.reply(w, rec, http.StatusOK, fail)
		return
	}
	ds := s.model.byDataset[id]
	if ds == nil {
		s.reply(w, rec, http.StatusOK, errorResult(codeData, fmt.Sprintf("You don't own the dataset %s. ", id)))
		return
	}
	ids, body := deleteTargets(ds, req)
	if body != nil {
		s.reply(w, rec, http.StatusOK, body)
		return
	}
	var unknown []string
	for _, docID := range ids {
		if d := s.model.byDoc[docID]; d == nil || d.dataset != ds {
			unknown = append(unknown, docID)
		}
	}
	if len(unknown) > 0 {
		s.reply(w, rec, http.StatusOK, errorResult(codeData, fmt.Sprintf(
			"These documents do not belong to dataset %s or Document not found: %s", id, strings.Join(unknown, ", "))))
		return
	}
	s.model.deleteDocuments(ds, ids)
	s.reply(w, rec, http.StatusOK, result(map[string]any{"deleted": len(ids)}))
}

// deleteTargets reads DeleteDocumentReq: ids (no repeats) or delete_all.
func deleteTargets(ds *dataset, req map[string]any) ([]string, map[string]any) {
	raw, _ := req["ids"].([]any)
	all, _ := req["delete_all"].(bool)
	switch {
	case len(raw) == 0 && !all:
		return nil, errorResult(codeData, fmt.Sprintf("should either provide doc ids or set delete_all(true), dataset: %s. ", ds.ID))
	case len(raw) > 0 && all:
		return nil, errorResult(codeData, fmt.Sprintf("should not provide both doc ids and delete_all(true), dataset: %s. ", ds.ID))
	case all:
		ids := make([]string, len(ds.docs))
		for i, d := range ds.docs {
			ids[i] = d.id
		}
		return ids, nil
	}
	ids, seen := stringList(raw), map[string]bool{}
	for _, docID := range ids {
		if seen[docID] {
			return nil, errorResult(codeArgument, fieldError("ids", "Duplicate ids: '"+docID+"'", raw))
		}
		seen[docID] = true
	}
	return ids, nil
}
