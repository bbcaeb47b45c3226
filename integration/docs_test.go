package integration

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// The documents a reader follows: the README (a short start, at most 300
// lines) and the pages under docs/ it links to by audience. Their relative
// links must reach a file, and a link into a Markdown page a heading of it,
// so moving a section between pages cannot leave a dead link behind.

// docPages are the Markdown files whose links are checked.
func docPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"../README.md", "../CHANGELOG.md", "../SECURITY.md"}, pages...)
}

var (
	mdLink     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	inlineCode = regexp.MustCompile("`[^`\n]*`")
	mdHeading  = regexp.MustCompile(`^#{1,6} (.+)$`)
)

// prose is a page without its fenced code blocks, whose lines are returned
// empty, so line numbers stay those of the file.
func prose(text string) []string {
	lines := strings.Split(text, "\n")
	fenced := false
	for i, line := range lines {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			lines[i] = ""
		} else if fenced {
			lines[i] = ""
		}
	}
	return lines
}

// anchorOf is the id GitHub gives a heading: lower case, every character
// but letters, digits, spaces, '-' and '_' dropped, spaces made '-'.
func anchorOf(heading string) string {
	heading = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`).ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors are the ids of a page's headings (a repeated one gets -1, -2…).
func anchors(t *testing.T, page string) map[string]bool {
	t.Helper()
	raw, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	ids := map[string]bool{}
	for _, line := range prose(string(raw)) {
		m := mdHeading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		id := anchorOf(m[1])
		if n := seen[id]; n > 0 {
			ids[id+"-"+string(rune('0'+n))] = true
		} else {
			ids[id] = true
		}
		seen[id]++
	}
	return ids
}

func TestDocsLinksResolve(t *testing.T) {
	checked := 0
	for _, page := range docPages(t) {
		raw, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range prose(string(raw)) {
			for _, m := range mdLink.FindAllStringSubmatch(inlineCode.ReplaceAllString(line, ""), -1) {
				target := m[1]
				if regexp.MustCompile(`^[a-z]+:`).MatchString(target) {
					continue
				}
				checked++
				file, anchor, _ := strings.Cut(target, "#")
				dest := page
				if file != "" {
					dest = filepath.Join(filepath.Dir(page), file)
				}
				where := strings.TrimPrefix(page, "../") + ":" + itoa(n+1)
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s: link %s: no such file", where, target)
					continue
				}
				if anchor != "" && strings.HasSuffix(dest, ".md") && !anchors(t, dest)[anchor] {
					t.Errorf("%s: link %s: %s has no heading with that id", where, target, strings.TrimPrefix(dest, "../"))
				}
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d relative links found: the reader of the pages is broken", checked)
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var d []byte
	for ; n > 0; n /= 10 {
		d = append([]byte{byte('0' + n%10)}, d...)
	}
	return string(d)
}

// The README stays a short start: what it is, the two commands, the ports,
// a try-it and the table of contents into docs/, which names every page.
func TestReadmeIsAShortStart(t *testing.T) {
	raw, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	if n := strings.Count(readme, "\n"); n > 300 {
		t.Errorf("README.md has %d lines, more than 300: move the detail into docs/", n)
	}
	pages, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range pages {
		if link := "](docs/" + filepath.Base(page) + ")"; !strings.Contains(readme, link) {
			t.Errorf("README.md does not link %s", strings.TrimPrefix(page, "../"))
		}
	}
}

// The Quick start's two commands: the first builds and runs the gate on the
// development backends (scripts/smoke.sh runs it from there), the second is
// exactly the test command .ci/run runs.
func TestReadmeCommandsAreCIs(t *testing.T) {
	raw, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, quick, ok := strings.Cut(string(raw), "\n## Quick start\n")
	quick, _, _ = strings.Cut(quick, "\n## ")
	blocks := regexp.MustCompile("(?s)```sh\n(.*?)\n```").FindAllStringSubmatch(quick, -1)
	if !ok || len(blocks) < 2 {
		t.Fatalf("README.md's Quick start has %d shell blocks, want the two commands first", len(blocks))
	}
	if want := "go build -o wikigate ./cmd/wikigate && ./wikigate run --config Caddyfile"; blocks[0][1] != want {
		t.Errorf("README.md's first command is %q, want %q", blocks[0][1], want)
	}
	ci, err := os.ReadFile("../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	testLine := regexp.MustCompile(`(?m)^go test -race .*$`).FindString(string(ci))
	if testLine == "" || blocks[1][1] != testLine {
		t.Errorf("README.md's test command is %q, .ci/run runs %q", blocks[1][1], testLine)
	}
}

// Each page under docs/ opens with a table of contents that links every one
// of its "## " sections.
func TestDocsPagesHaveContents(t *testing.T) {
	pages, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range pages {
		raw, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		lines := prose(string(raw))
		var sections []string
		first := -1
		for i, line := range lines {
			if strings.HasPrefix(line, "## ") {
				if first < 0 {
					first = i
				}
				sections = append(sections, anchorOf(line[3:]))
			}
		}
		head := strings.Join(lines[:max(first, 0)], "\n")
		for _, id := range sections {
			if !strings.Contains(head, "](#"+id+")") {
				t.Errorf("%s: its contents, before the first section, do not link #%s", strings.TrimPrefix(page, "../"), id)
			}
		}
	}
}
