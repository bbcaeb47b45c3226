package ingest

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
)

// The RAGFlow calls a load needs (docs/backends.md, RAGFlow "Write side"), one
// function each.

// ragDataset is what ingest reads of a dataset.
type ragDataset struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// ragDocument is what ingest reads of a document.
type ragDocument struct {
	ID   string         `json:"id"`
	Name string         `json:"name"`
	Run  string         `json:"run"`
	Meta map[string]any `json:"meta_fields"`
	// ProgressMsg says why a parse failed.
	ProgressMsg string `json:"progress_msg"`
}

// listPageSize is the largest page RAGFlow allows (page_size > 100 fails).
const listPageSize = 100

// listDatasets pages through every dataset the key can see. Listing by name
// would do too, but a miss is an error there (docs/backends.md, "RAGFlow wire
// details", Datasets), and one listing answers for every dataset of the
// catalog.
func (c *RAGFlowClient) listDatasets(ctx context.Context) ([]ragDataset, error) {
	var all []ragDataset
	for page := 1; ; page++ {
		var batch []ragDataset
		q := url.Values{"page": {strconv.Itoa(page)}, "page_size": {strconv.Itoa(listPageSize)},
			"orderby": {"create_time"}, "desc": {"false"}}
		if err := c.call(ctx, request{method: http.MethodGet, path: "/api/v1/datasets", query: q}, &batch); err != nil {
			return nil, err
		}
		all = append(all, batch...)
		if len(batch) < listPageSize {
			return all, nil
		}
	}
}

// createDataset creates a dataset for Markdown pages: naive chunking, plain
// text layout, RAPTOR and GraphRAG off, so the stored config says what it does
// (docs/backends.md, RAGFlow "Write side";
// ingest/dataset.create.request.ingest.json).
func (c *RAGFlowClient) createDataset(ctx context.Context, name string) (ragDataset, error) {
	body := map[string]any{
		"name":         name,
		"description":  "Wiki pages loaded by wikigate ingest",
		"permission":   "me",
		"chunk_method": "naive",
		"parser_config": map[string]any{
			"chunk_token_num": 512, "delimiter": "\n", "layout_recognize": "Plain Text",
			"raptor": map[string]any{"use_raptor": false}, "graphrag": map[string]any{"use_graphrag": false},
		},
	}
	var ds ragDataset
	err := c.call(ctx, request{method: http.MethodPost, path: "/api/v1/datasets", json: body}, &ds)
	return ds, err
}

func docsPath(datasetID string) string {
	return "/api/v1/datasets/" + url.PathEscape(datasetID) + "/documents"
}

// listDocuments pages through a dataset's documents, oldest first.
func (c *RAGFlowClient) listDocuments(ctx context.Context, datasetID string, ids []string) ([]ragDocument, error) {
	var all []ragDocument
	for page := 1; ; page++ {
		var batch struct {
			Total int           `json:"total"`
			Docs  []ragDocument `json:"docs"`
		}
		q := url.Values{"page": {strconv.Itoa(page)}, "page_size": {strconv.Itoa(listPageSize)},
			"orderby": {"create_time"}, "desc": {"false"}}
		if len(ids) > 0 {
			q["ids"] = ids
		}
		if err := c.call(ctx, request{method: http.MethodGet, path: docsPath(datasetID), query: q}, &batch); err != nil {
			return nil, err
		}
		all = append(all, batch.Docs...)
		if len(batch.Docs) < listPageSize || page*listPageSize >= batch.Total {
			return all, nil
		}
	}
}

// upload stores one page as a document; RAGFlow names it after the part's
// file name (renamed "name(1).md" if taken) and does not parse it yet.
func (c *RAGFlowClient) upload(ctx context.Context, datasetID, name, content string) (ragDocument, error) {
	var docs []ragDocument
	err := c.call(ctx, request{method: http.MethodPost, path: docsPath(datasetID),
		file: &uploadFile{name: name, content: content}}, &docs)
	if err == nil && len(docs) != 1 {
		err = &RAGFlowError{Status: http.StatusOK, Message: "upload answered " + strconv.Itoa(len(docs)) + " documents for one file"}
	}
	if err != nil {
		return ragDocument{}, err
	}
	return docs[0], nil
}

// setMeta replaces the document's meta_fields (docs/backends.md, RAGFlow
// "Write side").
func (c *RAGFlowClient) setMeta(ctx context.Context, datasetID, docID string, meta map[string]string) error {
	return c.call(ctx, request{method: http.MethodPatch, path: docsPath(datasetID) + "/" + url.PathEscape(docID),
		json: map[string]any{"meta_fields": meta}}, nil)
}

// parse queues the documents' parsing through the documented route, which
// every API generation has (docs/backends.md, RAGFlow "Write side").
func (c *RAGFlowClient) parse(ctx context.Context, datasetID string, ids []string) error {
	return c.call(ctx, request{method: http.MethodPost, path: "/api/v1/datasets/" + url.PathEscape(datasetID) + "/chunks",
		json: map[string]any{"document_ids": ids}}, nil)
}

// deleteDocuments removes documents; one unknown id fails the whole call
// (docs/backends.md, RAGFlow "Write side"), so callers delete only ids they
// just listed.
func (c *RAGFlowClient) deleteDocuments(ctx context.Context, datasetID string, ids []string) error {
	return c.call(ctx, request{method: http.MethodDelete, path: docsPath(datasetID), json: map[string]any{"ids": ids}}, nil)
}
