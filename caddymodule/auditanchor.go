package caddymodule

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/wikigate/wikigate/audit"
)

// DefaultAnchorInterval is how often an audit file's chain head is
// published when it moved (docs/security.md, Audit): records written
// since the last published head are what an attacker with the file could
// cut from its tail unseen if the gate then died without a clean shutdown.
const DefaultAnchorInterval = time.Minute

// anchorTimeout bounds one post of a head to anchor_url.
const anchorTimeout = 5 * time.Second

var (
	chainHeadOnce  sync.Once
	chainHeadGauge *prometheus.GaugeVec
)

// auditChainHead is caddy_wikigate_audit_chain_head{file,stream,sha256},
// valued at the head's seq: the series a Prometheus server scrapes and
// keeps, out of reach of whoever holds the file. One series per file: a
// new head replaces the file's previous one.
func auditChainHead() *prometheus.GaugeVec {
	chainHeadOnce.Do(func() {
		chainHeadGauge = prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: "caddy", Subsystem: "wikigate", Name: "audit_chain_head",
			Help: "The last published head of each audit file's hash chain: its seq, with its stream and sha256 as labels (wikigate audit verify --head stream:seq:sha256).",
		}, []string{"file", "stream", "sha256"})
	})
	return chainHeadGauge
}

// headPublisher publishes a file's head to the process log, the metric and,
// when set, url (a POST of the head as JSON; a failure is logged, the
// head stays in the log and the metric).
func headPublisher(logger *zap.Logger, file, url string) func(audit.Head) {
	client := &http.Client{Timeout: anchorTimeout}
	return func(h audit.Head) {
		logger.Info(audit.HeadMessage, zap.String("file", file), zap.String("stream", h.Stream),
			zap.Uint64("seq", h.Seq), zap.String("sha256", h.Hash))
		g := auditChainHead()
		g.DeletePartialMatch(prometheus.Labels{"file": file})
		g.WithLabelValues(file, h.Stream, h.Hash).Set(float64(h.Seq))
		if url == "" {
			return
		}
		if err := postHead(client, url, audit.PublishedHead{File: file, Stream: h.Stream, Seq: h.Seq, SHA256: h.Hash}); err != nil {
			logger.Warn("audit chain head not posted to anchor_url", zap.String("url", url), zap.Error(err))
		}
	}
}

func postHead(client *http.Client, url string, h audit.PublishedHead) error {
	body, err := json.Marshal(h)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), anchorTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("anchor endpoint answered %s", resp.Status)
	}
	return nil
}
