package audit

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"time"
)

// Problem is one break in an audit log's hash chain, at a line.
type Problem struct {
	File string
	Line int
	Msg  string
}

func (p Problem) String() string { return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Msg) }

// Head is the last record of one stream: keep it elsewhere to anchor the
// chain (an edit of a stream's very last line changes no later link).
type Head struct {
	Stream string
	Seq    uint64
	Hash   string
	File   string
	Line   int
}

// Report is what VerifyAnchored found.
type Report struct {
	Records  int // chained records
	Other    int // lines outside any chain (not written by a ChainWriter)
	Heads    []Head
	Ends     []End // one per stream, in the order of their last records
	Problems []Problem
	Anchored []Anchored // the published heads that hold (VerifyAnchored)
}

// EndState is how a stream ended.
type EndState string

// The ways a stream ends.
const (
	// EndClosed: its last record is its close record (a clean shutdown,
	// or a config unload that closed the file).
	EndClosed EndState = "closed"
	// EndUnclean: no close record, and a later stream's start record
	// names its last record as the file's end: its process died (kill
	// -9, a crash, power loss) and records of calls it had answered may
	// never have reached the file.
	EndUnclean EndState = "unclean"
	// EndOpen: no close record and no later start names it: the stream
	// is still being written, or its process died and no gate opened the
	// file since.
	EndOpen EndState = "open"
	// EndUnchecked: the stream has no start record (written before start
	// and close records existed), so how it ended was not recorded.
	EndUnchecked EndState = "unchecked"
)

// End is how one stream ended: its last record and what follows it.
type End struct {
	Stream string
	Seq    uint64 // its last record's seq
	Time   string // its last record's ts (RFC 3339, UTC, when a number)
	File   string
	Line   int
	State  EndState
	// Cut: the line after its last record was cut short (the process
	// died mid-write); the start record after it says so.
	Cut bool
	// NextFile and NextLine are the start record that found the stream
	// unclosed (EndUnclean only).
	NextFile string
	NextLine int
}

func (e End) String() string {
	at := fmt.Sprintf("seq %d", e.Seq)
	if e.Time != "" {
		at += " at " + e.Time
	}
	where := fmt.Sprintf("%s:%d", e.File, e.Line)
	switch e.State {
	case EndUnclean:
		cut := ""
		if e.Cut {
			cut = ", the line after it cut short"
		}
		return fmt.Sprintf("unclean end: stream %s ended at %s (%s%s) without a close record; the gate was restarted after it (%s:%d): it was killed or crashed, and records of calls it answered after that may be lost", e.Stream, at, where, cut, e.NextFile, e.NextLine)
	case EndOpen:
		return fmt.Sprintf("open: stream %s is at %s (%s) without a close record: still being written, or its gate stopped without closing it and none has opened the file since", e.Stream, at, where)
	case EndUnchecked:
		return fmt.Sprintf("unchecked: stream %s ends at %s (%s); it was written before start and close records, so how it ended is not recorded", e.Stream, at, where)
	}
	return fmt.Sprintf("closed: stream %s at %s (%s)", e.Stream, at, where)
}

// Input is one file to verify; several are read as one log, in order
// (rotated files oldest first).
type Input struct {
	Name string
	R    io.Reader
}

type entry struct {
	file     string
	line     int
	hash     string
	stream   string
	seq      uint64
	prev     string
	chained  bool
	notJSON  bool
	position int // index in file order
	event    string
	ts       string
	// a start record's view of the file's end before it
	prevStream string
	prevSeq    uint64
	prevCut    bool
}

type chainFields struct {
	Seq        *uint64         `json:"seq"`
	Stream     string          `json:"stream"`
	Prev       *string         `json:"prev_hash"`
	Event      string          `json:"audit_event"`
	PrevStream string          `json:"prev_stream"`
	PrevSeq    uint64          `json:"prev_seq"`
	PrevCut    bool            `json:"prev_cut"`
	TS         json.RawMessage `json:"ts"`
}

// chainOf reads a line's chain fields; false when it is not a chained
// record.
func chainOf(line []byte) (chainFields, bool) {
	var f chainFields
	if err := json.Unmarshal(line, &f); err != nil {
		return f, false
	}
	return f, f.Seq != nil && f.Stream != "" && f.Prev != nil
}

func readEntries(inputs []Input) ([]entry, error) {
	var out []entry
	for _, in := range inputs {
		sc := bufio.NewScanner(in.R)
		sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
		for n := 1; sc.Scan(); n++ {
			if len(sc.Bytes()) == 0 {
				continue
			}
			out = append(out, parseEntry(in.Name, n, sc.Bytes(), len(out)))
		}
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", in.Name, err)
		}
	}
	return out, nil
}

func parseEntry(file string, n int, line []byte, pos int) entry {
	e := entry{file: file, line: n, hash: HashLine(line), position: pos}
	var f chainFields
	if err := json.Unmarshal(line, &f); err != nil {
		e.notJSON = true
		return e
	}
	if f.Seq != nil && f.Stream != "" && f.Prev != nil {
		e.chained, e.stream, e.seq, e.prev = true, f.Stream, *f.Seq, *f.Prev
		e.event, e.ts = f.Event, formatTS(f.TS)
		if f.Event == EventStart {
			e.prevStream, e.prevSeq, e.prevCut = f.PrevStream, f.PrevSeq, f.PrevCut
		}
	}
	return e
}

type key struct {
	stream string
	seq    uint64
}

type verifier struct {
	entries []entry
	bySeq   map[key]*entry
	byHash  map[string]*entry
	last    map[string]*entry // per stream, the highest seq seen so far
	first   map[string]*entry // per stream, its first record in the log
	starts  map[key]*entry    // start records by the stream end they name
	report  Report
}

func newVerifier(entries []entry) *verifier {
	v := &verifier{entries: entries, bySeq: map[key]*entry{}, byHash: map[string]*entry{}, last: map[string]*entry{},
		first: map[string]*entry{}, starts: map[key]*entry{}}
	for i := range entries {
		e := &entries[i]
		if e.chained {
			if _, dup := v.bySeq[key{e.stream, e.seq}]; !dup {
				v.bySeq[key{e.stream, e.seq}] = e
			}
			if _, seen := v.first[e.stream]; !seen {
				v.first[e.stream] = e
			}
			if e.event == EventStart && e.prevStream != "" {
				v.starts[key{e.prevStream, e.prevSeq}] = e
			}
		}
		v.byHash[e.hash] = e
	}
	return v
}

func (v *verifier) problem(e *entry, format string, args ...any) {
	v.report.Problems = append(v.report.Problems, Problem{File: e.file, Line: e.line, Msg: fmt.Sprintf(format, args...)})
}

func (v *verifier) run() {
	for i := range v.entries {
		e := &v.entries[i]
		switch {
		case e.notJSON && v.cutByCrash(i):
			v.report.Other++ // the start record after it says so; reported with the stream's end
		case e.notJSON:
			v.report.Other++
			v.problem(e, "not a JSON record (edited, or cut short)")
		case !e.chained:
			v.report.Other++
		default:
			v.report.Records++
			v.check(e)
		}
	}
	v.heads()
	v.ends()
}

// cutByCrash: the line at i is the one the next stream's start record
// names as cut short (a process that died mid-write), not an edit.
func (v *verifier) cutByCrash(i int) bool {
	if i+1 >= len(v.entries) {
		return false
	}
	next := &v.entries[i+1]
	return next.chained && next.event == EventStart && next.prevCut && next.prev == v.entries[i].hash
}

func (v *verifier) check(e *entry) {
	if first := v.bySeq[key{e.stream, e.seq}]; first != e {
		v.problem(e, "stream %s seq %d repeats line %d (duplicated or replayed record)", e.stream, e.seq, first.line)
		return
	}
	last := v.last[e.stream]
	if last != nil && last.event == EventClose && e.seq > last.seq {
		v.problem(e, "stream %s seq %d comes after its close record (line %d)", e.stream, e.seq, last.line)
	}
	switch {
	case last != nil && e.seq < last.seq:
		v.problem(e, "stream %s seq %d comes after seq %d (line %d): records reordered", e.stream, e.seq, last.seq, last.line)
	case last == nil || e.seq > last.seq:
		v.gap(e, last)
		v.last[e.stream] = e
	}
	v.link(e)
}

// gap reports the seqs missing between the stream's previous record and e.
func (v *verifier) gap(e *entry, last *entry) {
	from := uint64(1)
	if last != nil {
		from = last.seq + 1
	}
	for s := from; s < e.seq; s++ {
		if later := v.bySeq[key{e.stream, s}]; later != nil {
			continue // it is further down: reported there as reordered
		}
		if last == nil && s == 1 && e.position == 0 {
			v.problem(e, "stream %s starts at seq %d: its earlier records are not in this log (give the rotated files first)", e.stream, e.seq)
			return
		}
		v.problem(e, "stream %s seq %d is missing before this line (seq %d): record removed", e.stream, s, e.seq)
	}
}

// link checks e's prev_hash against the record it names.
func (v *verifier) link(e *entry) {
	if e.seq > 1 {
		prev := v.bySeq[key{e.stream, e.seq - 1}]
		if prev != nil && prev.hash != e.prev {
			v.problem(prev, "record edited: its hash does not match prev_hash of the next record of stream %s (line %d)", e.stream, e.line)
		}
		return
	}
	if e.prev == "" {
		return
	}
	named := v.byHash[e.prev]
	switch {
	case named != nil && named.position < e.position:
	case e.position == 0:
		// the first line of the log continues a file not given here
	default:
		v.problem(e, "stream %s starts by naming prev_hash %.12s…, which no earlier line has: the line before it was edited or removed", e.stream, e.prev)
	}
}

func (v *verifier) heads() {
	for s, e := range v.last {
		v.report.Heads = append(v.report.Heads, Head{Stream: s, Seq: e.seq, Hash: e.hash, File: e.file, Line: e.line})
	}
	slices.SortFunc(v.report.Heads, func(a, b Head) int { return a.Line - b.Line })
}

// ends says how each stream ended: closed, unclean (a later start record
// found it unclosed), open, or unchecked (no start record: an old file).
func (v *verifier) ends() {
	for s, last := range v.last {
		end := End{Stream: s, Seq: last.seq, Time: last.ts, File: last.file, Line: last.line}
		first := v.first[s]
		next := v.starts[key{s, last.seq}]
		switch {
		case last.event == EventClose:
			end.State = EndClosed
		case first.seq == 1 && first.event != EventStart:
			end.State = EndUnchecked
		case next != nil && next.position > last.position:
			end.State, end.Cut, end.NextFile, end.NextLine = EndUnclean, next.prevCut, next.file, next.line
		default:
			end.State = EndOpen
		}
		v.report.Ends = append(v.report.Ends, end)
	}
	slices.SortFunc(v.report.Ends, func(a, b End) int {
		return v.last[a.Stream].position - v.last[b.Stream].position
	})
}

// formatTS writes a record's ts as RFC 3339 (UTC, milliseconds) when it
// is a number of seconds since the epoch (zap's and Caddy's default), and
// as written otherwise.
func formatTS(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var secs float64
	if err := json.Unmarshal(raw, &secs); err == nil {
		whole, frac := math.Modf(secs)
		return time.Unix(int64(whole), int64(frac*1e9)).UTC().Format("2006-01-02T15:04:05.000Z07:00")
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s
	}
	return string(raw)
}
