package backend

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrTooLarge is ReadLimited's answer to a body over its limit: not the
// backend's contract, whatever it holds (a BadResponse in the gate).
var ErrTooLarge = errors.New("response over the size limit")

// ReadLimited reads r to its end into buf (empty or not: the limit counts
// what buf holds), reading at most one byte more than max: a longer body is
// ErrTooLarge, never silently cut; a failed read is the reader's error.
func ReadLimited(buf *bytes.Buffer, r io.Reader, max int64) error {
	if _, err := buf.ReadFrom(io.LimitReader(r, max+1-int64(buf.Len()))); err != nil {
		return err
	}
	if int64(buf.Len()) > max {
		return ErrTooLarge
	}
	return nil
}

// TransportKind sorts a failure to get a whole answer (the round trip or
// the body's read) under ctx, the call's context: Timeout when a deadline
// passed, the call's or the transport's own (a dial or handshake timing
// out); Unreachable for the rest: refused, reset, DNS, or the caller gone
// (ClientClosed tells that one apart).
func TransportKind(ctx context.Context, err error) ErrorKind {
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) ||
		(errors.As(err, &ne) && ne.Timeout()) {
		return Timeout
	}
	return Unreachable
}

// TransportDetail is err for a log line: a url.Error's cause without the
// method and URL it repeats.
func TransportDetail(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return err.Error()
}

// MaxDetailBytes bounds a backend's text in an error's Detail.
const MaxDetailBytes = 300

// Detail makes a backend's text safe for an operator's log line: each
// secret (the keys and bearer of the call) replaced by "[redacted]" in case
// a proxy echoed a header back, control characters and invalid UTF-8
// (Meilisearch filter errors hold newlines) turned into spaces, the ends
// trimmed and the length bounded to MaxDetailBytes on a rune boundary.
func Detail(text string, secrets ...string) string {
	for _, s := range secrets {
		if s != "" {
			text = strings.ReplaceAll(text, s, "[redacted]")
		}
	}
	text = strings.TrimSpace(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return ' '
		}
		return r
	}, text))
	if len(text) > MaxDetailBytes {
		cut := MaxDetailBytes
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut] + "…"
	}
	return text
}
