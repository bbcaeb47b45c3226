package backend

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

func TestReadLimitedRefusesWhatIsOverTheLimit(t *testing.T) {
	for _, c := range []struct {
		body string
		max  int64
		err  error
	}{
		{"12345", 5, nil},
		{"123456", 5, ErrTooLarge},
		{"", 0, nil},
		{"1", 0, ErrTooLarge},
	} {
		var buf bytes.Buffer
		err := ReadLimited(&buf, strings.NewReader(c.body), c.max)
		if !errors.Is(err, c.err) || (err == nil && buf.String() != c.body) {
			t.Errorf("%q under %d: %v, read %q", c.body, c.max, err, buf.String())
		}
	}
	boom := errors.New("reset")
	var buf bytes.Buffer
	if err := ReadLimited(&buf, iotest.ErrReader(boom), 10); !errors.Is(err, boom) {
		t.Errorf("a failed read is %v, want the reader's error", err)
	}
}

func TestTransportKind(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel2()
	bg := context.Background()
	// A dial to an address nobody answers on times out in the transport
	// itself (a net.Error with Timeout), not through the call's context.
	dialTimeout := &net.OpError{Op: "dial", Err: timeoutErr{}}
	for _, c := range []struct {
		name string
		ctx  context.Context
		err  error
		want ErrorKind
	}{
		{"refused", bg, &net.OpError{Op: "dial", Err: errors.New("connection refused")}, Unreachable},
		{"caller gone", canceled, context.Canceled, Unreachable},
		{"call's deadline", bg, context.DeadlineExceeded, Timeout},
		{"deadline seen only on the context", expired, io.ErrUnexpectedEOF, Timeout},
		{"dial timeout", bg, dialTimeout, Timeout},
	} {
		if got := TransportKind(c.ctx, c.err); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

func TestTransportDetailDropsTheURL(t *testing.T) {
	err := fmt.Errorf("ragflow: %w", &url.Error{Op: "Post", URL: "http://ragflow:9380/api/v1/retrieval", Err: errors.New("connection refused")})
	if got := TransportDetail(err); got != "connection refused" {
		t.Errorf("detail %q", got)
	}
	if got := TransportDetail(io.ErrUnexpectedEOF); got != "unexpected EOF" {
		t.Errorf("detail %q", got)
	}
}

func TestDetailIsOneSafeBoundedLine(t *testing.T) {
	got := Detail(" bad key sk-secret\nand Bearer tok\x00en \xff ", "sk-secret", "", "tok\x00en")
	if got != "bad key [redacted] and Bearer [redacted]" {
		t.Errorf("detail %q", got)
	}
	long := Detail(strings.Repeat("é", MaxDetailBytes))
	if len(long) > MaxDetailBytes+len("…") || !strings.HasSuffix(long, "…") {
		t.Errorf("long detail kept %d bytes", len(long))
	}
	if !strings.HasPrefix(long, "é") || strings.ContainsRune(long, '\uFFFD') {
		t.Errorf("cut inside a rune: %q", long[len(long)-8:])
	}
}
