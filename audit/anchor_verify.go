package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// Anchored is a published head the log was checked against: the file has
// its record, and Later records of its stream follow it (written after it
// was published, so anchored by no head given).
type Anchored struct {
	Head
	Later uint64
}

// VerifyAnchored checks the hash chains of the given files: a removed line
// shows as a gap in a stream's seq (or as a first record naming a hash no
// line has), a reordered one as a seq out of order, an edited one as a hash
// that no longer matches the next record's prev_hash; Report.Ends says how
// each stream ended (closed, unclean, open or unchecked). Then it checks
// the log against heads published outside it (Anchor), if any: each head's
// record must be in the log with the published hash. A removed tail shows as a head whose seq the stream no
// longer reaches, an edited last line or a re-hashed file as a head whose
// record has another hash. Report.Anchored lists the heads that hold.
func VerifyAnchored(heads []Head, inputs ...Input) (Report, error) {
	entries, err := readEntries(inputs)
	if err != nil {
		return Report{}, err
	}
	v := newVerifier(entries)
	v.run()
	for _, h := range heads {
		v.checkHead(h)
	}
	return v.report, nil
}

// checkHead compares one published head with the log.
func (v *verifier) checkHead(h Head) {
	last := v.last[h.Stream]
	if last == nil {
		v.report.Problems = append(v.report.Problems, Problem{File: "(log)", Msg: fmt.Sprintf(
			"stream %s is not in the log, but its head seq %d sha256 %.12s… was published: its records were removed", h.Stream, h.Seq, h.Hash)})
		return
	}
	e := v.bySeq[key{h.Stream, h.Seq}]
	switch {
	case e == nil && last.seq < h.Seq:
		v.problem(last, "stream %s ends at seq %d, but its head was published at seq %d (sha256 %.12s…): records %d to %d were removed from the end",
			h.Stream, last.seq, h.Seq, h.Hash, last.seq+1, h.Seq)
	case e == nil:
		v.report.Problems = append(v.report.Problems, Problem{File: last.file, Msg: fmt.Sprintf(
			"stream %s seq %d, its published head, is not in the log: removed", h.Stream, h.Seq)})
	case e.hash != h.Hash:
		v.problem(e, "stream %s seq %d is not the record published as its head (sha256 %.12s…, this line %.12s…): the line was edited, or the file rewritten and re-hashed",
			h.Stream, h.Seq, h.Hash, e.hash)
	default:
		v.report.Anchored = append(v.report.Anchored, Anchored{Head: Head{Stream: h.Stream, Seq: h.Seq, Hash: h.Hash, File: e.file, Line: e.line},
			Later: last.seq - h.Seq})
	}
}

// ParseHead reads a head as verify prints it and --head takes it:
// stream:seq:sha256.
func ParseHead(s string) (Head, error) {
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return Head{}, fmt.Errorf("head %q: want stream:seq:sha256", s)
	}
	seq, err := strconv.ParseUint(parts[1], 10, 64)
	if err != nil || seq == 0 {
		return Head{}, fmt.Errorf("head %q: seq %q is not a positive number", s, parts[1])
	}
	if !sha256Hex.MatchString(parts[2]) {
		return Head{}, fmt.Errorf("head %q: %q is not a SHA-256 in hex", s, parts[2])
	}
	return Head{Stream: parts[0], Seq: seq, Hash: parts[2]}, nil
}

var sha256Hex = regexp.MustCompile(`^[0-9a-f]{64}$`)

// HeadMessage is the message of the process log line that publishes a
// head (its fields: file, stream, seq, sha256).
const HeadMessage = "audit chain head"

// PublishedHead is a head as the gate publishes it: in its process log
// line, its remote endpoint's body, and ReadHeads' result.
type PublishedHead struct {
	File   string `json:"file"`
	Stream string `json:"stream"`
	Seq    uint64 `json:"seq"`
	SHA256 string `json:"sha256"`
}

// ReadHeads reads published heads from a log (the gate's process log, in
// JSON or console format, or the JSON lines an anchor endpoint kept):
// every line carrying HeadMessage or the four fields. Per stream it keeps
// the latest (highest seq) head.
func ReadHeads(r io.Reader) ([]PublishedHead, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	latest := map[string]int{}
	var out []PublishedHead
	for sc.Scan() {
		line := sc.Bytes()
		i := bytes.IndexByte(line, '{')
		if i < 0 || !bytes.Contains(line, []byte(`"sha256"`)) {
			continue
		}
		var h PublishedHead
		if json.Unmarshal(line[i:], &h) != nil || h.Stream == "" || h.Seq == 0 || !sha256Hex.MatchString(h.SHA256) {
			continue
		}
		if j, seen := latest[h.Stream]; seen {
			if out[j].Seq < h.Seq {
				out[j] = h
			}
			continue
		}
		latest[h.Stream] = len(out)
		out = append(out, h)
	}
	return out, sc.Err()
}
