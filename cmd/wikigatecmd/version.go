package wikigatecmd

import (
	"fmt"
	"io"
	"runtime/debug"
	"slices"

	"github.com/caddyserver/caddy/v2"
)

// Version and Commit are the gate's own release and source revision. A
// release build sets them (the Dockerfile does):
//
//	go build -ldflags "-X github.com/wikigate/wikigate/cmd/wikigatecmd.Version=v1.2.0 \
//	  -X github.com/wikigate/wikigate/cmd/wikigatecmd.Commit=$(git rev-parse HEAD)"
//
// Left empty, they come from the build information Go embeds (the module
// version, and the VCS revision of a build from a git checkout).
var (
	Version string
	Commit  string
)

const modulePath = "github.com/wikigate/wikigate"

// IsVersionCall reports whether args ask for the version (`wikigate
// version`, `wikigate --version`, `wikigate -v`): cmd/wikigate answers
// those itself, since Caddy's own version command only knows Caddy's.
func IsVersionCall(args []string) bool {
	return len(args) == 2 && slices.Contains([]string{"version", "--version", "-v"}, args[1])
}

// PrintVersion writes the gate's version and commit, then Caddy's, one per
// line:
//
//	wikigate v1.2.0 (commit 8561e21c…)
//	caddy v2.11.9 h1:…
func PrintVersion(w io.Writer) {
	version, commit := gateVersion()
	_, caddyFull := caddy.Version()
	fmt.Fprintf(w, "wikigate %s (commit %s)\ncaddy %s\n", version, commit, caddyFull)
}

// gateVersion is Version and Commit, each filled from the build
// information when the linker did not set it.
func gateVersion() (version, commit string) {
	version, commit = Version, Commit
	bi, ok := debug.ReadBuildInfo()
	if ok && version == "" {
		version = moduleVersion(bi)
	}
	if ok && commit == "" {
		commit = vcsRevision(bi)
	}
	if version == "" {
		version = "unknown"
	}
	if commit == "" {
		commit = "unknown"
	}
	return version, commit
}

// moduleVersion is wikigate's module version: the main module's in a build
// of this repository, the dependency's in an xcaddy build.
func moduleVersion(bi *debug.BuildInfo) string {
	mod := &bi.Main
	if mod.Path != modulePath {
		i := slices.IndexFunc(bi.Deps, func(m *debug.Module) bool { return m.Path == modulePath })
		if i < 0 {
			return ""
		}
		mod = bi.Deps[i]
	}
	if mod.Replace != nil && mod.Replace.Version != "" {
		return mod.Replace.Version
	}
	return mod.Version
}

// vcsRevision is the git commit the binary was built from, marked
// "+dirty" when the checkout had uncommitted changes.
func vcsRevision(bi *debug.BuildInfo) string {
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev != "" && modified == "true" {
		rev += "+dirty"
	}
	return rev
}
