package ingest

import (
	"bufio"
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// gitTimes finds, for each source file (slash-separated, relative to src),
// the committer time of the last commit that touched it, when src is inside
// a git work tree; outside one (a `git archive` unpacked, a copy) or
// without git it returns nothing, and the pages have no updatedAt.
//
// It reads one `git log --name-only` of src, newest commit first, and stops
// as soon as every file has its time: one process for the whole tree, not
// one per page. A file never committed gets no time.
func gitTimes(ctx context.Context, src string, files []string) map[string]time.Time {
	out := map[string]time.Time{}
	if len(files) == 0 || !insideWorkTree(ctx, src) {
		return out
	}
	want := tracked(ctx, src, files)
	if len(want) == 0 {
		return out // no page is committed (a tree in an ignored folder): no log to read
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "-C", src, "-c", "core.quotePath=false",
		"log", "--format=%x00%cI", "--name-only", "--relative", "--no-renames", "--", ".")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return out
	}
	if err := cmd.Start(); err != nil {
		return out
	}
	readGitLog(stdout, want, out)
	cancel() // every file found (or the log ended): stop git early
	_ = cmd.Wait()
	return out
}

// readGitLog reads "\x00<time>" commit lines, each followed by the files
// the commit touched, keeping the first (newest) time of each wanted file.
func readGitLog(r interface{ Read([]byte) (int, error) }, want map[string]bool, out map[string]time.Time) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	var at time.Time
	for sc.Scan() && len(want) > 0 {
		line := sc.Text()
		if stamp, ok := strings.CutPrefix(line, "\x00"); ok {
			at, _ = time.Parse(time.RFC3339, stamp)
			continue
		}
		if line == "" || at.IsZero() || !want[line] {
			continue
		}
		out[line] = at.UTC()
		delete(want, line)
	}
}

// tracked keeps the files git tracks: the log is read until every wanted
// file is found, so an untracked one would make it read the whole history.
func tracked(ctx context.Context, src string, files []string) map[string]bool {
	raw, err := exec.CommandContext(ctx, "git", "-C", src, "ls-files", "-z", "--", ".").Output()
	if err != nil {
		return nil
	}
	known := map[string]bool{}
	for _, f := range strings.Split(string(raw), "\x00") {
		known[f] = true
	}
	want := map[string]bool{}
	for _, f := range files {
		if known[f] {
			want[f] = true
		}
	}
	return want
}

// insideWorkTree reports whether src is in a git work tree, with git on
// the PATH.
func insideWorkTree(ctx context.Context, src string) bool {
	if _, err := exec.LookPath("git"); err != nil {
		return false
	}
	abs, err := filepath.Abs(src)
	if err != nil {
		return false
	}
	raw, err := exec.CommandContext(ctx, "git", "-C", abs, "rev-parse", "--is-inside-work-tree").Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) || err != nil {
		return false
	}
	return strings.TrimSpace(string(raw)) == "true"
}
