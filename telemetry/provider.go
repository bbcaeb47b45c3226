// Package telemetry is wikigate's OpenTelemetry tracing (docs/operators.md, Tracing):
// a span for each stage of a call, the GenAI semantic conventions on the
// model call, the MCP conventions on tools/call, and the W3C trace context
// accepted from callers and sent on to the backends.
//
// Tracing is on only when the standard OpenTelemetry environment variables
// name an exporter (OTEL_TRACES_EXPORTER, OTEL_EXPORTER_OTLP_ENDPOINT,
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT). Off, New returns a nil *Provider and
// every helper here is a branch on a nil pointer or a non-recording span:
// no allocation, no lock, no header written.
//
// The package imports no Caddy; caddymodule builds the Provider.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// ScopeName is the instrumentation scope of every span the gate makes.
const ScopeName = "github.com/wikigate/wikigate"

// Options tune New.
type Options struct {
	// Getenv reads the environment; nil reads the process's (os.Getenv).
	Getenv func(string) string
	// RecordText is the operator's opt-in to put question and answer text
	// in spans: the same setting as audit records' log_questions. Without
	// it spans carry counts, codes and ids, never text a person wrote.
	RecordText bool
	// ServiceVersion is the service.version resource attribute.
	ServiceVersion string
	// Exporter replaces the exporter the environment names (tests).
	Exporter sdktrace.SpanExporter
	// ExportCopies says Exporter keeps nothing it is given once its
	// ExportSpans returns: no span, and no slice a span's methods
	// returned (Attributes, Events, Links). The OTLP exporters the
	// environment names are such (they encode a batch before ExportSpans
	// returns) and are always taken so. The recorder then reuses an
	// exported span's record and attribute storage for a later span
	// (spanStore). Leave it false for an exporter that keeps spans, as
	// tracetest.InMemoryExporter does: it would see later spans'
	// attributes in earlier ones.
	ExportCopies bool
	// OnError receives the OpenTelemetry errors, a failed export above
	// all (and spans dropped on a full queue, a sampler or limit the
	// environment gets wrong), which otherwise go to Go's log package on
	// standard error (caddymodule logs them with zap). The handler is the
	// process's: the last configuration loaded sets it.
	OnError func(error)
}

// Provider makes the gate's spans and exports them. A nil *Provider is
// tracing switched off; all its methods accept a nil receiver.
type Provider struct {
	rec        *spanRecorder
	tracer     *tracer
	prop       propagation.TextMapPropagator
	recordText bool
}

// errUnknownExporter refuses an OTEL_TRACES_EXPORTER this gate cannot
// honour, rather than starting without the traces the operator asked for.
var errUnknownExporter = errors.New("OTEL_TRACES_EXPORTER must be otlp or none")

// New builds the Provider the environment asks for, or returns nil (off)
// when no exporter is named, OTEL_TRACES_EXPORTER is none, or
// OTEL_SDK_DISABLED is true. The OTLP exporter itself reads the rest of
// the standard variables (endpoint, headers, protocol, timeout); the
// span recorder (recorder.go) reads OTEL_TRACES_SAMPLER(_ARG), the span limits
// and the batch processor's OTEL_BSP_* through getenv. Nothing here
// dials: the exporter connects when it first sends.
func New(ctx context.Context, o Options) (*Provider, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	exp, copies := o.Exporter, o.ExportCopies
	if exp == nil {
		on, err := wanted(getenv)
		if err != nil || !on {
			return nil, err
		}
		if exp, err = newExporter(ctx, getenv); err != nil {
			return nil, fmt.Errorf("tracing: %w", err)
		}
		copies = true // otlptrace.Exporter transforms the spans inside ExportSpans
	}
	res, err := resource.New(ctx, resource.WithFromEnv(), resource.WithTelemetrySDK(),
		resource.WithAttributes(attribute.String("service.name", serviceName(getenv)), attribute.String("service.version", o.ServiceVersion)))
	if err != nil && res == nil {
		return nil, fmt.Errorf("tracing: resource: %w", err)
	}
	if o.OnError != nil {
		otel.SetErrorHandler(otel.ErrorHandlerFunc(o.OnError))
	}
	rec := newRecorder(getenv, exp, copies, res)
	return &Provider{
		rec:        rec,
		tracer:     rec.own,
		prop:       propagation.TraceContext{},
		recordText: o.RecordText,
	}, nil
}

// wanted reads whether the environment names a trace exporter.
func wanted(getenv func(string) string) (bool, error) {
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return false, nil
	}
	switch strings.ToLower(strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER"))) {
	case "none":
		return false, nil
	case "otlp":
		return true, nil
	case "":
		return getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "", nil
	default:
		return false, fmt.Errorf("%w, not %q", errUnknownExporter, getenv("OTEL_TRACES_EXPORTER"))
	}
}

// newExporter is the OTLP exporter over the protocol the environment
// names: http/protobuf (the specification's default) or grpc. The
// endpoint is handed over as the specification reads it (a traces
// endpoint as is; the general one with /v1/traces for HTTP) because the
// exporter reads the process's environment itself, not Options.Getenv;
// the rest (headers, TLS, timeout) it reads from the environment.
func newExporter(ctx context.Context, getenv func(string) string) (*otlptrace.Exporter, error) {
	proto := getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
	if proto == "" {
		proto = getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	traces, base := getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"), strings.TrimRight(getenv("OTEL_EXPORTER_OTLP_ENDPOINT"), "/")
	switch strings.TrimSpace(proto) {
	case "", "http/protobuf":
		if traces == "" && base != "" {
			traces = base + "/v1/traces"
		}
		if traces != "" {
			return otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(traces))
		}
		return otlptracehttp.New(ctx)
	case "grpc":
		if traces == "" {
			traces = base
		}
		if traces != "" {
			return otlptracegrpc.New(ctx, otlptracegrpc.WithEndpointURL(traces))
		}
		return otlptracegrpc.New(ctx)
	default:
		return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or grpc, not %q", proto)
	}
}

// serviceName is OTEL_SERVICE_NAME, else "wikigate" (the SDK's default
// would be unknown_service).
func serviceName(getenv func(string) string) string {
	if n := getenv("OTEL_SERVICE_NAME"); n != "" {
		return n
	}
	return "wikigate"
}

// Enabled reports whether this gate exports traces.
func (p *Provider) Enabled() bool { return p != nil }

// RecordText reports the operator's opt-in to text in spans.
func (p *Provider) RecordText() bool { return p != nil && p.recordText }

// Shutdown exports the spans still buffered and stops the exporter; the
// gate calls it when its configuration is unloaded.
func (p *Provider) Shutdown(ctx context.Context) error {
	if p == nil {
		return nil
	}
	return p.rec.Shutdown(ctx)
}

// ForceFlush exports the spans buffered so far (tests, and a graceful stop).
func (p *Provider) ForceFlush(ctx context.Context) error {
	if p == nil {
		return nil
	}
	return p.rec.ForceFlush(ctx)
}
