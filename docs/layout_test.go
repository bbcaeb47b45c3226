// Package docs holds the checks that keep the documentation pages true to
// the tree; it has no code of its own.
package docs

import (
	"bufio"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// root is the repository, seen from this package's directory.
const root = ".."

// layoutRow is one line of the Layout table of architecture.md: the
// directories its first cell names, and the subdirectories its description
// names (relative to the row's directory, or to the repository root).
type layoutRow struct {
	line  int
	dirs  []string
	named []string
}

var (
	backticked = regexp.MustCompile("`([^`]+)`")
	dirToken   = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_./-]*/$`)
)

// readLayout parses the table under "## Layout" in architecture.md.
func readLayout(t *testing.T) []layoutRow {
	t.Helper()
	f, err := os.Open("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []layoutRow
	in := false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			in = line == "## Layout"
			continue
		}
		if !in || !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.SplitN(strings.TrimPrefix(line, "|"), "|", 2)
		if len(cells) != 2 {
			t.Fatalf("architecture.md:%d: a Layout row needs a package cell and a description: %s", n, line)
		}
		row := layoutRow{line: n}
		for _, m := range backticked.FindAllStringSubmatch(cells[0], -1) {
			row.dirs = append(row.dirs, m[1])
		}
		for _, m := range backticked.FindAllStringSubmatch(cells[1], -1) {
			if dirToken.MatchString(m[1]) {
				row.named = append(row.named, m[1])
			}
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatal("architecture.md has no Layout table under \"## Layout\"")
	}
	return rows
}

func isDir(rel string) bool {
	fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
	return err == nil && fi.IsDir()
}

// goPackageDirs lists every directory of the repository holding a .go file,
// slash-separated and ending in "/", as the go command sees the tree: it
// skips testdata, node_modules and names starting with "." or "_".
func goPackageDirs(t *testing.T) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".go") {
			rel, err := filepath.Rel(root, filepath.Dir(p))
			if err != nil {
				return err
			}
			if rel != "." {
				dirs = append(dirs, filepath.ToSlash(rel)+"/")
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(dirs)
	return slices.Compact(dirs)
}

// listed resolves every directory the table names, each to the row line
// that names it; a name that is no directory is reported.
func listed(t *testing.T, rows []layoutRow) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, r := range rows {
		for _, d := range r.dirs {
			if !isDir(d) {
				t.Errorf("architecture.md:%d: the Layout table lists %s, which is no directory of the repository", r.line, d)
			}
			out[d] = r.line
		}
		for _, n := range r.named {
			switch {
			case len(r.dirs) == 1 && isDir(r.dirs[0]+n):
				out[r.dirs[0]+n] = r.line
			case isDir(n):
				out[n] = r.line
			default:
				t.Errorf("architecture.md:%d: the Layout row of %v names %s, which is no directory under it", r.line, r.dirs, n)
			}
		}
	}
	return out
}

// TestLayoutTableMatchesTheTree: every Go package of the repository (the
// root's plugin.go aside, which the text under the table names) has a line
// of its own or is named in its parent's, and every directory the table
// names exists, so the table cannot drift from the tree as packages come
// and go.
func TestLayoutTableMatchesTheTree(t *testing.T) {
	names := listed(t, readLayout(t))
	for _, d := range goPackageDirs(t) {
		if _, ok := names[d]; !ok {
			t.Errorf("Go package %s is missing from the Layout table of docs/architecture.md (give it a row, or name it as `%s` in its parent's row)", d, lastPart(d))
		}
	}
	for _, d := range topLevelDirs(t) {
		if !slices.ContainsFunc(slices.Collect(maps.Keys(names)), func(n string) bool { return strings.HasPrefix(n, d) }) {
			t.Errorf("top-level directory %s is missing from the Layout table of docs/architecture.md", d)
		}
	}
}

func lastPart(d string) string {
	d = strings.TrimSuffix(d, "/")
	return d[strings.LastIndex(d, "/")+1:] + "/"
}

// topLevelDirs lists the repository's top-level directories but hidden ones
// and those .gitignore leaves out as a whole ("/data/": run-time data of
// a local gate, absent from a clone).
func topLevelDirs(t *testing.T) []string {
	t.Helper()
	ignored := map[string]bool{}
	if b, err := os.ReadFile(filepath.Join(root, ".gitignore")); err == nil {
		for line := range strings.Lines(string(b)) {
			line = strings.TrimSpace(line)
			if strings.HasPrefix(line, "/") && strings.HasSuffix(line, "/") && strings.Count(line, "/") == 2 {
				ignored[strings.TrimPrefix(line, "/")] = true
			}
		}
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range entries {
		name := e.Name() + "/"
		if e.IsDir() && !strings.HasPrefix(name, ".") && !ignored[name] {
			dirs = append(dirs, name)
		}
	}
	return dirs
}
