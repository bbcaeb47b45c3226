package ingest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func runGit(t *testing.T, dir, date string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.org",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.org",
		"GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// TestUpdatedAtComesFromFrontMatterThenGitNeverTheFile: a page's date is
// its front matter's, else its last commit's (found in one git log of
// the tree), else absent; the file's time is never read and the date is
// not part of the page's hash.
func TestUpdatedAtComesFromFrontMatterThenGitNeverTheFile(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed (Debian package git)")
	}
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "site"))); err != nil {
		t.Fatal(err)
	}
	m, err := LoadMapping(filepath.Join("testdata", "mapping.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	outside, _, err := ReadTree(dir, m)
	if err != nil {
		t.Fatal(err)
	}
	runbook := byPath(outside, "main", "publish/operations/runbook.md")
	if _, has := runbook.Document()["updatedAt"]; has || !runbook.UpdatedAt.IsZero() {
		t.Fatalf("outside git, a page without a date has updatedAt %v (the file's time?)", runbook.Document()["updatedAt"])
	}

	runGit(t, dir, "", "init", "-q", "-b", "main")
	runGit(t, dir, "2026-02-03T04:05:06Z", "add", ".")
	runGit(t, dir, "2026-02-03T04:05:06Z", "commit", "-q", "-m", "all")
	os.WriteFile(filepath.Join(dir, "docs", "operations", "runbook.md"), []byte("# On-call runbook\n\nNew text.\n"), 0o600)
	runGit(t, dir, "2026-05-06T07:08:09+02:00", "commit", "-q", "-am", "runbook")
	if err := os.Chtimes(filepath.Join(dir, "docs", "operations", "runbook.md"), time.Now(), time.Now()); err != nil {
		t.Fatal(err)
	}
	pages, _, err := ReadTree(dir, m)
	if err != nil {
		t.Fatal(err)
	}
	runbook = byPath(pages, "main", "publish/operations/runbook.md")
	if want := time.Date(2026, 5, 6, 5, 8, 9, 0, time.UTC); !runbook.UpdatedAt.Equal(want) || runbook.Document()["updatedAt"] != "2026-05-06T05:08:09Z" {
		t.Fatalf("runbook updatedAt %v, want its last commit's %v", runbook.UpdatedAt, want)
	}
	dated := byPath(pages, "main", "publish/system/components/kunora-kgent/index.md")
	if want := time.Date(2026, 1, 15, 0, 0, 0, 0, time.UTC); !dated.UpdatedAt.Equal(want) {
		t.Fatalf("a front matter date %v, want %v: it wins over git", dated.UpdatedAt, want)
	}
	before := *runbook
	before.UpdatedAt = time.Time{}
	before.computeHash()
	if before.Hash != runbook.Hash {
		t.Fatal("the date is part of the hash")
	}
}

// TestReadGitLogKeepsEachFilesNewestCommit reads log output as git
// prints it (newest first) for files that are and are not wanted.
func TestReadGitLogKeepsEachFilesNewestCommit(t *testing.T) {
	log := "\x002026-03-01T00:00:00Z\n\ndocs/a.md\ndocs/other.txt\n\x002026-02-01T00:00:00Z\n\ndocs/a.md\ndocs/b.md\n"
	out := map[string]time.Time{}
	readGitLog(strings.NewReader(log), map[string]bool{"docs/a.md": true, "docs/b.md": true, "docs/c.md": true}, out)
	if len(out) != 2 || out["docs/a.md"].Month() != 3 || out["docs/b.md"].Month() != 2 {
		t.Fatalf("times %v", out)
	}
}
