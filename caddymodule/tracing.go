package caddymodule

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/wikigate/wikigate/telemetry"
)

// provisionTracing builds the gate's tracer from the standard
// OpenTelemetry environment variables (docs/operators.md, Tracing): nil, tracing off,
// unless they name an exporter. Question and answer text go into spans
// only with log_questions, as into audit records.
func (h *Handler) provisionTracing(ctx context.Context) error {
	tp, err := telemetry.New(ctx, telemetry.Options{RecordText: h.LogQuestions, OnError: func(err error) {
		// An export that failed, spans dropped at a full queue, a sampler
		// the environment names wrongly: each says what happened, and
		// none of them touches a call.
		h.logger.Warn("tracing problem (calls unaffected)", zap.Error(err))
	}})
	if err != nil {
		return fmt.Errorf("tracing: %w", err)
	}
	h.tracer = tp
	if tp.Enabled() {
		h.logger.Info("tracing on: exporting spans over OTLP", zap.Bool("text_in_spans", tp.RecordText()))
	}
	return nil
}

// tracingShutdownTimeout bounds the export of the last spans when a
// configuration is unloaded: a collector that is down must not hold up a
// reload or a stop.
const tracingShutdownTimeout = 5 * time.Second

// shutdownTracing exports what is buffered and stops the exporter.
func (h *Handler) shutdownTracing() {
	if !h.tracer.Enabled() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), tracingShutdownTimeout)
	defer cancel()
	if err := h.tracer.Shutdown(ctx); err != nil {
		h.logger.Warn("tracing: spans not exported at shutdown", zap.Error(err))
	}
}
