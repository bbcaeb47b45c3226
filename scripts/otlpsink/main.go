// Command otlpsink is a tiny OpenTelemetry collector for the walkthrough
// scripts: it receives traces over OTLP/HTTP (POST /v1/traces, protobuf,
// gzip or not), as the gate exports them when docs/operators.md "Tracing"
// turns tracing on, and prints one line per span, so a script can check
// what an operator's collector would receive:
//
//	span service=wikigate trace=4bf9… parent=- kind=SPAN_KIND_SERVER name="POST /agent/tools/ask" attrs=http.route=/agent/tools/ask,…
//
// It listens on loopback only (-listen, default 127.0.0.1:4318, the OTLP
// default port), over HTTPS with -tls-cert and -tls-key, until it is stopped.
package main

import (
	"compress/gzip"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sort"
	"strings"
	"time"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:4318", "loopback address to receive OTLP/HTTP traces on")
	cert := flag.String("tls-cert", "", "PEM certificate: receive over HTTPS (the SDK's default endpoint is https://localhost:4318)")
	key := flag.String("tls-key", "", "PEM private key of -tls-cert")
	flag.Parse()
	host, _, err := net.SplitHostPort(*listen)
	if err != nil || net.ParseIP(host) == nil || !net.ParseIP(host).IsLoopback() {
		fmt.Fprintf(os.Stderr, "otlpsink: -listen %q is not a loopback IP and port\n", *listen)
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, "otlpsink:", err)
		os.Exit(2)
	}
	srv := &http.Server{Handler: http.HandlerFunc(receive), ReadHeaderTimeout: 5 * time.Second}
	if *cert != "" {
		fmt.Fprintf(os.Stderr, "otlpsink: receiving OTLP/HTTP traces on https://%s/v1/traces\n", ln.Addr())
		err = srv.ServeTLS(ln, *cert, *key)
	} else {
		fmt.Fprintf(os.Stderr, "otlpsink: receiving OTLP/HTTP traces on http://%s/v1/traces\n", ln.Addr())
		err = srv.Serve(ln)
	}
	fmt.Fprintln(os.Stderr, "otlpsink:", err)
	os.Exit(1)
}

// receive decodes one export request, prints its spans and answers as a
// collector does (an empty ExportTraceServiceResponse).
func receive(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "want POST /v1/traces application/x-protobuf", http.StatusBadRequest)
		return
	}
	req, err := decode(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	for _, rs := range req.ResourceSpans {
		service := attr(rs.GetResource().GetAttributes(), "service.name")
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				fmt.Println(line(service, s))
			}
		}
	}
	out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

func decode(r *http.Request) (*coltrace.ExportTraceServiceRequest, error) {
	var body io.Reader = http.MaxBytesReader(nil, r.Body, 64<<20)
	if r.Header.Get("Content-Encoding") == "gzip" {
		gz, err := gzip.NewReader(body)
		if err != nil {
			return nil, err
		}
		body = gz
	}
	raw, err := io.ReadAll(body)
	if err != nil {
		return nil, err
	}
	var req coltrace.ExportTraceServiceRequest
	return &req, proto.Unmarshal(raw, &req)
}

// line is one span as the scripts grep it: ids in hex, "-" for no parent,
// the attributes sorted by key.
func line(service string, s *tracepb.Span) string {
	parent := "-"
	if len(s.ParentSpanId) > 0 {
		parent = hex.EncodeToString(s.ParentSpanId)
	}
	attrs := make([]string, 0, len(s.Attributes))
	for _, kv := range s.Attributes {
		attrs = append(attrs, kv.Key+"="+value(kv.Value))
	}
	sort.Strings(attrs)
	return fmt.Sprintf("span service=%s trace=%s id=%s parent=%s kind=%s status=%s name=%q attrs=%s",
		service, hex.EncodeToString(s.TraceId), hex.EncodeToString(s.SpanId), parent, s.Kind,
		s.GetStatus().GetCode(), s.Name, strings.Join(attrs, ","))
}

func attr(kvs []*commonpb.KeyValue, key string) string {
	for _, kv := range kvs {
		if kv.Key == key {
			return value(kv.Value)
		}
	}
	return ""
}

// value prints a scalar as it is; arrays and maps in the protobuf text form.
func value(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return fmt.Sprint(x.IntValue)
	case *commonpb.AnyValue_BoolValue:
		return fmt.Sprint(x.BoolValue)
	case *commonpb.AnyValue_DoubleValue:
		return fmt.Sprint(x.DoubleValue)
	default:
		return strings.ReplaceAll(v.String(), " ", "")
	}
}
