// Command firstdelta measures how soon a streamed answer shows its first
// words (issue 24 point 7): for each question of a set it asks the gate
// with Accept: text/event-stream and times, from the moment the request
// is sent, the first delta event and the result event. The gate's RAGFlow
// is this program's tap (-listen), a pass-through to the paced development
// RAGFlow (-upstream, WIKIGATE_RAGFLOW_DEV_DELTA_PAUSE set) that reads the
// model's stream as it passes and notes when its first sentence became
// complete by docs/docs-sites.md's rule (Streaming: complete once the
// model has begun the next one). The gate's own delay is the first
// delta's arrival minus that moment, both on this process's clock.
//
//	go run ./bench/internal/firstdelta -gate http://127.0.0.1:18094 \
//	    -listen 127.0.0.1:18095 -upstream http://127.0.0.1:18096 \
//	    -set evalsets/samplewiki.yaml -n 12 -out bench/out/firstdelta.txt
//
// The gate must already be configured with the tap's address as its
// RAGFlow URL; the program waits up to 30 s for the gate to answer, then
// asks one unrecorded question before the measured ones. It
// prints one line: FIRSTDELTA asked=N streamed=N ratio_p50=… ratio_p95=…
// first_ms_p50=… result_ms_p50=… delay_ms_p50=… delay_ms_p95=…
// mismatched=N failed=N (exit 0 either way), and writes one line per
// question to -out.
// Every step is bounded in time.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"
)

type options struct {
	gate, listen, upstream, set, out, route string
	n, repeats                              int
}

func main() {
	var o options
	flag.StringVar(&o.gate, "gate", "http://127.0.0.1:18094", "the gate's base URL")
	flag.StringVar(&o.listen, "listen", "127.0.0.1:18095", "the tap's address (the gate's RAGFlow URL)")
	flag.StringVar(&o.upstream, "upstream", "http://127.0.0.1:18096", "the paced development RAGFlow")
	flag.StringVar(&o.set, "set", "evalsets/samplewiki.yaml", "evaluation set whose anonymous answerable questions are asked")
	flag.StringVar(&o.route, "route", "/answer/ask", "the streaming route, asked anonymously as a docs reader")
	flag.StringVar(&o.out, "out", "", "file for one line per question")
	flag.IntVar(&o.n, "n", 12, "questions to ask (the set's first)")
	flag.IntVar(&o.repeats, "repeats", 1, "times each question is asked")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "firstdelta:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	questions, err := readQuestions(o.set, o.n)
	if err != nil {
		return err
	}
	up, err := url.Parse(o.upstream)
	if err != nil {
		return err
	}
	t := &tap{}
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: t.proxy(up), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	if err := waitHealthy(o.gate); err != nil {
		return err
	}
	// One unrecorded ask first: the gate's first call through the tap can
	// meet a connection its health probe left behind (seen as "unexpected
	// EOF" on the first retrieval only).
	_ = t.ask(o.gate+o.route, questions[0])
	var asks []ask
	for r := 0; r < o.repeats; r++ {
		for _, q := range questions {
			a := t.ask(o.gate+o.route, q)
			asks = append(asks, a)
		}
	}
	return report(o, asks)
}

// ask is one question's timings; first and result are from the moment
// the request was sent, modelDone is when the model's first sentence
// became complete at the tap (zero when it never did).
type ask struct {
	question          string
	first, result     time.Duration
	modelDone         time.Duration
	deltas            int
	err               string
	mismatch, noDelta bool
}

// tap proxies the gate's RAGFlow calls and watches the completion stream
// of the one ask in flight (asks are sequential).
type tap struct {
	mu        sync.Mutex
	start     time.Time
	modelDone time.Time
}

func (t *tap) proxy(up *url.URL) http.Handler {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8, DisableCompression: true}}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		out, err := http.NewRequestWithContext(ctx, r.Method, up.String()+r.URL.RequestURI(), r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		out.Header = r.Header.Clone()
		out.ContentLength = r.ContentLength
		resp, err := client.Do(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		var body io.Reader = resp.Body
		if strings.HasSuffix(r.URL.Path, "/chat/completions") {
			body = &watchedBody{r: resp.Body, t: t}
		}
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		copyFlushing(w, body) // every event on at once, as RAGFlow sends it
	})
}

// copyFlushing copies src to w, flushing after every read.
func copyFlushing(w http.ResponseWriter, src io.Reader) {
	buf := make([]byte, 32<<10)
	fl, _ := w.(http.Flusher)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return
			}
			if fl != nil {
				fl.Flush()
			}
		}
		if err != nil {
			return
		}
	}
}

// watchedBody reads the model's SSE as the gate will, line by line, and
// notes the moment its text first holds a complete sentence.
type watchedBody struct {
	r       io.Reader
	t       *tap
	partial []byte
	text    strings.Builder
	done    bool
}

func (w *watchedBody) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	if n > 0 && !w.done {
		w.partial = append(w.partial, p[:n]...)
		for {
			i := bytes.IndexByte(w.partial, '\n')
			if i < 0 {
				break
			}
			w.line(w.partial[:i])
			w.partial = w.partial[i+1:]
		}
		if w.done {
			w.t.mu.Lock()
			w.t.modelDone = time.Now()
			w.t.mu.Unlock()
		}
	}
	return n, err
}

func (w *watchedBody) line(l []byte) {
	payload, ok := bytes.CutPrefix(bytes.TrimRight(l, "\r"), []byte("data:"))
	if !ok || w.done {
		return
	}
	var ev struct {
		Data struct {
			Answer string `json:"answer"`
			Final  bool   `json:"final"`
		} `json:"data"`
	}
	if json.Unmarshal(bytes.TrimSpace(payload), &ev) != nil || ev.Data.Final {
		return
	}
	w.text.WriteString(ev.Data.Answer)
	w.done = firstSentenceComplete(w.text.String())
}

// firstSentenceComplete is docs/docs-sites.md's rule (Streaming): a
// sentence ends at . ! ? before a blank, or at 。！？; the citation
// markers right after it ([ID:n], blanks between) are its own; it is
// complete once a letter or digit of the next one has arrived.
func firstSentenceComplete(text string) bool {
	end := -1
	for i, r := range text {
		if strings.ContainsRune("。！？", r) {
			end = i + len(string(r))
			break
		}
		if strings.ContainsRune(".!?", r) && i+1 < len(text) && strings.ContainsRune(" \t\n", rune(text[i+1])) {
			end = i + 1
			break
		}
	}
	if end < 0 {
		return false
	}
	rest := text[end:]
	for {
		rest = strings.TrimLeft(rest, " \t\r\n")
		if !strings.HasPrefix(rest, "[ID:") {
			break
		}
		j := strings.IndexByte(rest, ']')
		if j < 0 {
			return false // a marker still being written
		}
		rest = rest[j+1:]
	}
	return strings.IndexFunc(rest, func(r rune) bool {
		return r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 0x7f
	}) >= 0
}

// ask sends one question and reads its event stream to done.
func (t *tap) ask(u, question string) ask {
	a := ask{question: question}
	body, _ := json.Marshal(map[string]string{"question": question})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	t.mu.Lock()
	t.start, t.modelDone = time.Now(), time.Time{}
	start := t.start
	t.mu.Unlock()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.err = err.Error()
		return a
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		a.err = resp.Status
		return a
	}
	var streamed strings.Builder
	var result struct {
		Answer         string  `json:"answer"`
		NoAnswerReason *string `json:"noAnswerReason"`
	}
	if err := readEvents(resp.Body, func(event string, data []byte) {
		now := time.Since(start)
		switch event {
		case "delta":
			var d struct {
				Text string `json:"text"`
			}
			_ = json.Unmarshal(data, &d)
			if a.deltas == 0 {
				a.first = now
			}
			a.deltas++
			streamed.WriteString(d.Text)
		case "result":
			a.result = now
			_ = json.Unmarshal(data, &result)
		case "error":
			a.err = string(data)
		}
	}); err != nil && a.err == "" {
		a.err = err.Error()
	}
	t.mu.Lock()
	if !t.modelDone.IsZero() {
		a.modelDone = t.modelDone.Sub(start)
	}
	t.mu.Unlock()
	a.noDelta = a.deltas == 0 || result.NoAnswerReason != nil
	a.mismatch = !a.noDelta && streamed.String() != result.Answer
	if a.err == "" && a.result == 0 {
		a.err = "no result event"
	}
	return a
}

// readEvents calls fn with each event's name and data until done.
func readEvents(r io.Reader, fn func(event string, data []byte)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	event := ""
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case bytes.HasPrefix(line, []byte("event: ")):
			event = string(line[len("event: "):])
		case bytes.HasPrefix(line, []byte("data: ")):
			fn(event, line[len("data: "):])
			if event == "done" {
				return nil
			}
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return errors.New("stream ended before done")
}

func waitHealthy(gate string) error {
	c := &http.Client{Timeout: time.Second}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if resp, err := c.Get(gate + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
	}
	return fmt.Errorf("%s/healthz did not answer 200 within 30s", gate)
}

// report prints the summary line and writes the per-question lines.
func report(o options, asks []ask) error {
	var ratios, firsts, results, delays []float64
	failed, mismatched := 0, 0
	var lines strings.Builder
	for _, a := range asks {
		fmt.Fprintf(&lines, "%q first_ms=%.0f result_ms=%.0f model_first_sentence_ms=%.0f deltas=%d", a.question, ms(a.first), ms(a.result), ms(a.modelDone), a.deltas)
		switch {
		case a.err != "":
			failed++
			fmt.Fprintf(&lines, " error=%q\n", a.err)
			continue
		case a.noDelta:
			lines.WriteString(" no_answer\n")
			continue
		}
		if a.mismatch {
			mismatched++
			lines.WriteString(" deltas_differ_from_result")
		}
		ratios = append(ratios, float64(a.first)/float64(a.result))
		firsts = append(firsts, ms(a.first))
		results = append(results, ms(a.result))
		if a.modelDone > 0 {
			d := ms(a.first - a.modelDone)
			delays = append(delays, d)
			fmt.Fprintf(&lines, " gate_delay_ms=%.1f", d)
		}
		fmt.Fprintf(&lines, " ratio=%.2f\n", float64(a.first)/float64(a.result))
	}
	if o.out != "" {
		if err := os.WriteFile(o.out, []byte(lines.String()), 0o644); err != nil {
			return err
		}
	}
	fmt.Printf("FIRSTDELTA asked=%d streamed=%d ratio_p50=%.2f ratio_p95=%.2f first_ms_p50=%.0f result_ms_p50=%.0f delay_ms_p50=%.1f delay_ms_p95=%.1f delay_ms_max=%.1f mismatched=%d failed=%d\n",
		len(asks), len(ratios), quantile(ratios, 0.5), quantile(ratios, 0.95), quantile(firsts, 0.5), quantile(results, 0.5),
		quantile(delays, 0.5), quantile(delays, 0.95), quantile(delays, 1), mismatched, failed)
	return nil // failed=N says it; bench/run.sh fails the run on it
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// quantile is the nearest-rank quantile q of vs (0 when empty).
func quantile(vs []float64, q float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.999999) - 1
	return s[max(0, min(i, len(s)-1))]
}

// readQuestions returns the first n questions of the set's answerable
// cases asked anonymously (no caller): a docs reader's questions.
func readQuestions(path string, n int) ([]string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var set struct {
		Cases []struct {
			Kind     string `yaml:"kind"`
			Caller   string `yaml:"caller"`
			Question string `yaml:"question"`
		} `yaml:"cases"`
	}
	if err := yaml.Unmarshal(raw, &set); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []string
	for _, c := range set.Cases {
		if c.Kind == "answerable" && c.Caller == "" && len(out) < n {
			out = append(out, c.Question)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s has no anonymous answerable case", path)
	}
	return out, nil
}
