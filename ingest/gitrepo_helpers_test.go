package ingest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// needGit skips a test that drives git when it is not installed.
func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed (Debian package git)")
	}
}

// git runs git in dir with a fixed identity and commit date, so a test's
// commits have the times it names.
func git(t *testing.T, dir, date string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.org",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.org",
		"GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// gitRepoOf copies the tree src into a new git repository, committed at date.
func gitRepoOf(t *testing.T, src, date string) string {
	t.Helper()
	needGit(t)
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	git(t, dir, date, "init", "-q", "-b", "main")
	git(t, dir, date, "add", ".")
	git(t, dir, date, "commit", "-q", "-m", "docs")
	return dir
}

// exportOf unpacks `git archive HEAD` of repo into a new folder: the tree
// as a release tarball or a CI checkout without history has it.
func exportOf(t *testing.T, repo string) string {
	t.Helper()
	dir := t.TempDir()
	tarball := filepath.Join(t.TempDir(), "docs.tar")
	git(t, repo, "2026-01-01T00:00:00Z", "archive", "-o", tarball, "HEAD")
	if out, err := exec.Command("tar", "-xf", tarball, "-C", dir).CombinedOutput(); err != nil {
		t.Fatalf("tar: %v\n%s", err, out)
	}
	return dir
}

// touchAll sets every file's modification time under dir to a new one.
func touchAll(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		return os.Chtimes(p, timeIn2030, timeIn2030)
	})
	if err != nil {
		t.Fatal(err)
	}
}
