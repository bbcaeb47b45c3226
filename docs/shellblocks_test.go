package docs

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A shell block of README.md or a docs/ page is a command a reader pastes;
// the README scripts (scripts/readme_*.sh, run by .ci/run) run them as
// written, so a page cannot drift from what works. This file checks that
// every shell block is either run by one of them, as listed in runners, or
// marked on the line before it as deliberately not run, with a reason:
//
//	<!-- readme_deploy: not run (no Docker in CI) -->
//
// A new block therefore fails here until a script runs it (and runners says
// so) or the page says why it is not run.

// runner says who runs which shell blocks of a page: the blocks of section
// (a "## " heading; "" for the whole page) numbered block (1-based among
// the section's shell blocks), or, with block 0, every ```sh block of it
// (the scripts read ```sh blocks; other shell info strings are listed one
// by one). by is the script, or .ci/run for a command it runs itself.
type runner struct {
	page, section string
	block         int
	by            string
}

var runners = []runner{
	{"README.md", "Quick start", 1, "scripts/smoke.sh"},
	{"README.md", "Quick start", 2, ".ci/run"},
	{"README.md", "Quick start", 3, "scripts/readme_ports.sh"},
	{"README.md", "Try it", 0, "scripts/readme_examples.sh"},
	{"docs/agents.md", "Every tool, step by step", 0, "scripts/readme_examples.sh"},
	{"docs/agents.md", "MCP", 0, "scripts/readme_examples.sh"},
	{"docs/backends.md", "What the backends must hold", 0, "scripts/readme_checks.sh"},
	{"docs/docs-sites.md", "Streaming", 0, "scripts/readme_operators_sites.sh"},
	{"docs/eval.md", "", 0, "scripts/readme_eval.sh"},
	{"docs/ingest.md", "Loading your wiki", 1, "scripts/readme_checks.sh"}, // the layouts' dry runs
	{"docs/ingest.md", "Loading your wiki", 2, "scripts/readme_ingest.sh"}, // the start with empty backends
	{"docs/ingest.md", "Loading your wiki", 3, "scripts/readme_ingest.sh"},
	{"docs/ingest.md", "Adding a project", 0, "scripts/readme_project.sh"},
	{"docs/operators.md", "Deploying", 0, "scripts/readme_deploy.sh"},
	{"docs/operators.md", "Tracing", 0, "scripts/readme_tracing.sh"},
	{"docs/operators.md", "Keys", 0, "scripts/readme_operators_sites.sh"},
	{"docs/operators.md", "Logs, errors, admin API and metrics", 0, "scripts/readme_operators_sites.sh"},
	{"docs/security.md", "Editing and testing the policy", 0, "scripts/readme_security.sh"},
	{"docs/security.md", "Bundles", 0, "scripts/readme_security.sh"},
	{"docs/security.md", "Replay and explain", 0, "scripts/readme_security.sh"},
	{"docs/security.md", "Audit", 0, "scripts/readme_security.sh"},
	{"docs/security.md", "Hostile-client check", 0, "scripts/readme_checks.sh"},
}

// shellInfo are the info strings of shell blocks.
var shellInfo = map[string]bool{"sh": true, "bash": true, "shell": true, "console": true, "zsh": true, "shell-session": true}

// commandStart is how a block without an info string that is still a
// command begins (so dropping the info string does not dodge the check).
var commandStart = regexp.MustCompile(`^(\$ |\./wikigate |wikigate |curl |go |bash |sudo |docker |kubectl )`)

// notRun is the marker of a block deliberately not run; the reason is required.
var notRun = regexp.MustCompile(`^<!-- ([A-Za-z0-9_.-]+: )?not run \((.*)\) -->$`)

// shellBlock is one shell block of a page.
type shellBlock struct {
	line    int // of the opening fence
	section string
	n       int // among the section's shell blocks, from 1
	info    string
	text    string
	marker  string // the not-run marker's line before it, if any
}

// shellBlocks lists the shell blocks of a page's text. Fences are read as
// CommonMark does: a run of at least three backticks or tildes opens a
// block, the same character repeated at least as many times with nothing
// after it closes it.
func shellBlocks(text string) []shellBlock {
	var (
		out        []shellBlock
		section    string
		perSection = map[string]int{}
		prev       string // the last non-blank line outside a block
		fence      string
		cur        *shellBlock
		body       []string
	)
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for line := 1; sc.Scan(); line++ {
		l := sc.Text()
		if fence != "" {
			if t := strings.TrimSpace(l); strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
				fence = ""
				if cur != nil && (shellInfo[cur.info] || cur.info == "" && len(body) > 0 && commandStart.MatchString(body[0])) {
					cur.text = strings.Join(body, "\n")
					perSection[section]++
					cur.n = perSection[section]
					out = append(out, *cur)
				}
				cur, body = nil, nil
				continue
			}
			body = append(body, l)
			continue
		}
		if f := openingFence(l); f != "" {
			fence = f
			cur = &shellBlock{line: line, section: section, info: infoWord(l, f)}
			if notRun.MatchString(prev) {
				cur.marker = prev
			}
			continue
		}
		if h, ok := strings.CutPrefix(l, "## "); ok {
			section = strings.TrimSpace(h)
		}
		if strings.TrimSpace(l) != "" {
			prev = strings.TrimSpace(l)
		}
	}
	return out
}

// openingFence is the fence a line opens (its backticks or tildes), or "".
func openingFence(l string) string {
	t := strings.TrimLeft(l, " ")
	if len(l)-len(t) > 3 {
		return "" // indented code, not a fence
	}
	for _, c := range []string{"`", "~"} {
		n := len(t) - len(strings.TrimLeft(t, c))
		if n >= 3 && !(c == "`" && strings.Contains(t[n:], "`")) {
			return strings.Repeat(c, n)
		}
	}
	return ""
}

// infoWord is the first word of an opening fence's info string, or "".
func infoWord(l, fence string) string {
	w := strings.Fields(strings.TrimLeft(strings.TrimSpace(l), fence[:1]))
	if len(w) == 0 {
		return ""
	}
	return w[0]
}

// runBy is who runs block b of page, or "".
func runBy(page string, b shellBlock) string {
	for _, r := range runners {
		if r.page != page || r.section != "" && r.section != b.section {
			continue
		}
		if r.block == b.n || r.block == 0 && b.info == "sh" {
			return r.by
		}
	}
	return ""
}

// pages are README.md and every docs/ page, relative to the repository.
func pages(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	out := []string{"README.md"}
	for _, d := range docs {
		out = append(out, "docs/"+d)
	}
	return out
}

func readPage(t *testing.T, page string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, page))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestEveryShellBlockIsRunOrMarked: every shell block of README.md and the
// docs/ pages is run by a script, or marked as not run with a reason.
func TestEveryShellBlockIsRunOrMarked(t *testing.T) {
	for _, page := range pages(t) {
		for _, b := range shellBlocks(readPage(t, page)) {
			if m := notRun.FindStringSubmatch(b.marker); m != nil {
				if strings.TrimSpace(m[2]) == "" {
					t.Errorf("%s:%d: the block is marked not run without a reason: %s", page, b.line, b.marker)
				}
				continue
			}
			if runBy(page, b) == "" {
				t.Errorf("%s:%d: a ```%s block (section %q, its shell block %d) that no script runs: run it from a scripts/readme_*.sh "+
					"and list it in docs/shellblocks_test.go's runners, or mark it on the line before: <!-- not run (why) -->\n%s",
					page, b.line, b.info, b.section, b.n, b.text)
			}
		}
	}
}

// TestRunnersNameRealBlocks: each runner names a block or section that
// exists, and its script reads that page and section (or, for .ci/run, runs
// the block's lines itself), so the list cannot claim what no script does.
func TestRunnersNameRealBlocks(t *testing.T) {
	for _, r := range runners {
		text := readPage(t, r.page)
		found := false
		var lines []string
		for _, b := range shellBlocks(text) {
			if (r.section == "" || b.section == r.section) && (r.block == 0 || r.block == b.n) {
				found = true
				lines = append(lines, strings.Split(b.text, "\n")...)
			}
		}
		if !found {
			t.Errorf("runners: %s section %q block %d: the page has no such shell block", r.page, r.section, r.block)
			continue
		}
		script := readPage(t, r.by)
		if r.by == ".ci/run" {
			for _, l := range lines {
				if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") && !strings.Contains(script, l) {
					t.Errorf("runners: .ci/run does not run %s's line %q", r.page, l)
				}
			}
			continue
		}
		if !strings.Contains(script, r.page) {
			t.Errorf("runners: %s does not name %s", r.by, r.page)
		}
		if r.section != "" && !strings.Contains(script, r.section) {
			t.Errorf("runners: %s does not name %s's section %q", r.by, r.page, r.section)
		}
	}
}

// TestShellBlocksFindsWhatTheCheckNeeds: the parser sees shell blocks
// (not other code), their sections, numbers and markers, and a block that
// only looks like a command without an info string.
func TestShellBlocksFindsWhatTheCheckNeeds(t *testing.T) {
	page := "# T\n\n## One\n\n```sh\necho a\n```\n\n```json\n{}\n```\n\n<!-- x: not run (needs Docker) -->\n```console\ndocker run x\n```\n\n" +
		"## Two\n\n````md\n```sh\nnot a block\n```\n````\n\n```\n./wikigate run --config Caddyfile\n```\n\n```\nok    output\n```\n"
	got := shellBlocks(page)
	want := []string{
		`5 "One" 1 sh "" "echo a"`,
		`14 "One" 2 console "<!-- x: not run (needs Docker) -->" "docker run x"`,
		`26 "Two" 1 "" "" "./wikigate run --config Caddyfile"`,
	}
	if len(got) != len(want) {
		t.Fatalf("got %d blocks %+v, want %d", len(got), got, len(want))
	}
	for i, b := range got {
		s := fmt.Sprintf("%d %q %d %s %q %q", b.line, b.section, b.n, b.info, b.marker, b.text)
		if b.info == "" {
			s = fmt.Sprintf("%d %q %d %q %q %q", b.line, b.section, b.n, b.info, b.marker, b.text)
		}
		if s != want[i] {
			t.Errorf("block %d: got %s, want %s", i, s, want[i])
		}
	}
	if runBy("docs/security.md", shellBlock{section: "Hostile-client check", n: 1, info: "sh"}) == "" {
		t.Error("the hostile-client block is run by no one")
	}
	if by := runBy("docs/security.md", shellBlock{section: "Hostile-client check", n: 2, info: "console"}); by != "" {
		t.Errorf("a console block is run by %s through a whole-section runner, which reads ```sh blocks only", by)
	}
}
