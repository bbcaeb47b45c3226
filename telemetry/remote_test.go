package telemetry

import (
	"context"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// TestRemoteParentReadsAsThePropagator: the caller's traceparent and
// tracestate are read as propagation.TraceContext reads them (the W3C
// rules: lower-case hex, version ff and unknown flags of version 00
// refused, fields past the flags only from version 01, zero ids
// invalid, a bad tracestate dropped alone), on valid headers and on
// random mutations of them.
func TestRemoteParentReadsAsThePropagator(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	bases := []string{
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00",
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-03",
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-04",
		"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-09-more",
		"fe-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-ff",
		"ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
		"00-00000000000000000000000000000000-00f067aa0ba902b7-01",
		"00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
		"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-",
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
		"",
	}
	states := []string{"", "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE", "bad state", "a=1,a=2"}
	const alphabet = "0123456789abcdefABCDEFg-x "
	check := func(tp, ts string) {
		t.Helper()
		h := http.Header{}
		if tp != "" {
			h["Traceparent"] = []string{tp}
		}
		if ts != "" {
			h["Tracestate"] = []string{ts}
		}
		want := trace.SpanContextFromContext(propagation.TraceContext{}.Extract(context.Background(), propagation.HeaderCarrier(h)))
		got := remoteParent(h)
		if !want.IsValid() {
			want = trace.SpanContext{}
		}
		if !got.Equal(want) || got.IsRemote() != want.IsRemote() {
			t.Fatalf("traceparent %q tracestate %q: got %v (%s), the propagator %v (%s)", tp, ts, got, got.TraceState(), want, want.TraceState())
		}
	}
	for _, tp := range bases {
		for _, ts := range states {
			check(tp, ts)
		}
	}
	for range 20000 {
		b := []byte(bases[rng.IntN(len(bases))])
		for range 1 + rng.IntN(3) {
			switch i := rng.IntN(len(b) + 1); {
			case len(b) == 0 || rng.IntN(3) == 0: // insert
				b = append(b[:i], append([]byte{alphabet[rng.IntN(len(alphabet))]}, b[i:]...)...)
			case rng.IntN(2) == 0 && i < len(b): // delete
				b = append(b[:i], b[i+1:]...)
			case i < len(b): // replace
				b[i] = alphabet[rng.IntN(len(alphabet))]
			}
		}
		check(string(b), states[rng.IntN(len(states))])
	}
}

// TestACallersTraceparentIsTheServerSpansParent: the server span under a
// caller's traceparent continues its trace with the caller's span as
// remote parent and its tracestate, the context returned holds the
// server span, and a trace the sampler drops leaves no span of the gate
// in the context either.
func TestACallersTraceparentIsTheServerSpansParent(t *testing.T) {
	p, exp := recorderWith(t, nil)
	h := http.Header{"Traceparent": {"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}, "Tracestate": {"rojo=1"}}
	ctx, call := p.StartServer(context.Background(), h, "call", attribute.String("a", "b"))
	sc := trace.SpanContextFromContext(ctx)
	if sc.SpanID() == [8]byte{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7} || sc.IsRemote() || !sc.IsSampled() || sc.TraceState().Get("rojo") != "1" {
		t.Errorf("the context's span context %v (tracestate %s) is not the server span's", sc, sc.TraceState())
	}
	call.End()
	got := flushed(t, p, exp)
	if len(got) != 1 || got[0].Parent.SpanID().String() != "00f067aa0ba902b7" || !got[0].Parent.IsRemote() ||
		got[0].SpanContext.TraceID().String() != "4bf92f3577b34da6a3ce929d0e0e4736" || got[0].ChildSpanCount != 0 {
		t.Fatalf("exported %v", got)
	}

	off, _ := recorderWith(t, map[string]string{"OTEL_TRACES_SAMPLER": "parentbased_always_off"})
	h["Traceparent"] = []string{strings.Replace(h["Traceparent"][0], "-01", "-00", 1)} // not sampled by the caller
	ctx, call = off.StartServer(context.Background(), h, "call")
	if call.Recording() || trace.SpanFromContext(ctx).IsRecording() || trace.SpanContextFromContext(ctx).IsSampled() ||
		trace.SpanContextFromContext(ctx).TraceID().String() != "4bf92f3577b34da6a3ce929d0e0e4736" {
		t.Errorf("a dropped trace: span recording %v, context's %v", call.Recording(), trace.SpanContextFromContext(ctx))
	}
}
