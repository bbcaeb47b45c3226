package wikigatecmd

import (
	"bytes"
	"regexp"
	"testing"
)

func TestVersionNamesTheGateAndCaddy(t *testing.T) {
	Version, Commit = "v1.2.3", "0123abcd"
	t.Cleanup(func() { Version, Commit = "", "" })
	var out bytes.Buffer
	PrintVersion(&out)
	if !regexp.MustCompile(`^wikigate v1\.2\.3 \(commit 0123abcd\)\ncaddy \S+\n$`).Match(out.Bytes()) {
		t.Errorf("version printed %q", out.String())
	}
}

func TestVersionCallsAreRecognised(t *testing.T) {
	for args, want := range map[string]bool{"version": true, "--version": true, "-v": true, "run": false, "build-info": false} {
		if got := IsVersionCall([]string{"wikigate", args}); got != want {
			t.Errorf("IsVersionCall(%q) = %v", args, got)
		}
	}
}
