package ingest

import (
	"context"
	"errors"
	"time"
)

// parseAndWait starts parsing the documents (at most listPageSize per
// call) and polls their run state until each is DONE, FAIL or CANCEL, or
// ParseTimeout passes; a page whose document did not end DONE is a failure.
func (s *RAGFlowSync) parseAndWait(ctx context.Context, datasetID string, docs []docRef, fail func(string, error)) {
	for start := 0; start < len(docs); start += listPageSize {
		batch := docs[start:min(start+listPageSize, len(docs))]
		ids := make([]string, len(batch))
		for i, d := range batch {
			ids[i] = d.id
		}
		if err := s.Client.parse(ctx, datasetID, ids); err != nil {
			for _, d := range batch {
				fail(d.label, err)
			}
			continue
		}
		s.waitParsed(ctx, datasetID, batch, fail)
	}
}

func (s *RAGFlowSync) waitParsed(ctx context.Context, datasetID string, batch []docRef, fail func(string, error)) {
	timeout, every := s.Client.ParseTimeout, s.Client.PollEvery
	if timeout <= 0 {
		timeout = 10 * time.Minute
	}
	if every <= 0 {
		every = time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	pending := map[string]string{}
	ids := make([]string, len(batch))
	for i, d := range batch {
		pending[d.id], ids[i] = d.label, d.id
	}
	for len(pending) > 0 {
		docs, err := s.Client.listDocuments(ctx, datasetID, ids)
		if err != nil {
			for _, label := range pending {
				fail(label, err)
			}
			return
		}
		for _, d := range docs {
			label, waiting := pending[d.ID]
			if !waiting {
				continue
			}
			switch d.Run {
			case "DONE":
				delete(pending, d.ID)
			case "FAIL", "CANCEL":
				delete(pending, d.ID)
				fail(label, errors.New("parsing ended "+d.Run+": "+d.ProgressMsg))
			}
		}
		if len(pending) == 0 {
			return
		}
		select {
		case <-ctx.Done():
			for _, label := range pending {
				fail(label, errors.New("parsing not finished: "+ctx.Err().Error()))
			}
			return
		case <-time.After(every):
		}
	}
}
