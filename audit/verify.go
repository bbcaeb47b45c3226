package audit

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
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

// Report is what Verify found.
type Report struct {
	Records  int // chained records
	Other    int // lines outside any chain (not written by a ChainWriter)
	Heads    []Head
	Problems []Problem
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
}

type chainFields struct {
	Seq    *uint64 `json:"seq"`
	Stream string  `json:"stream"`
	Prev   *string `json:"prev_hash"`
}

// Verify checks the hash chains of the given files: a removed line shows
// as a gap in a stream's seq (or as a first record naming a hash no line
// has), a reordered one as a seq out of order, an edited one as a hash that
// no longer matches the next record's prev_hash.
func Verify(inputs ...Input) (Report, error) {
	entries, err := readEntries(inputs)
	if err != nil {
		return Report{}, err
	}
	v := newVerifier(entries)
	v.run()
	return v.report, nil
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
	report  Report
}

func newVerifier(entries []entry) *verifier {
	v := &verifier{entries: entries, bySeq: map[key]*entry{}, byHash: map[string]*entry{}, last: map[string]*entry{}}
	for i := range entries {
		e := &entries[i]
		if e.chained {
			if _, dup := v.bySeq[key{e.stream, e.seq}]; !dup {
				v.bySeq[key{e.stream, e.seq}] = e
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
}

func (v *verifier) check(e *entry) {
	if first := v.bySeq[key{e.stream, e.seq}]; first != e {
		v.problem(e, "stream %s seq %d repeats line %d (duplicated or replayed record)", e.stream, e.seq, first.line)
		return
	}
	last := v.last[e.stream]
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
