package integration

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"
)

// The widget's feedback and restore in headless Chromium
// (tests/browser/widget-feedback.test.mjs), on a gate configured like the
// repo's Caddyfile (widget { demo on }): a reader asks on /demo/, reloads,
// sees the conversation restored from the session's history, rates the
// answer helpful and reports a problem by keyboard; both land in the
// answer's record under its dedupeKey; axe finds no serious or critical
// violation; a second reload still shows the rating; the screenshot
// widget-restored-rated.png goes to the artifacts directory.
func TestWidgetFeedbackInBrowser(t *testing.T) {
	node, chromium := browserTools(t)
	g := startGate(t, gateOptions{extraOptions: "widget {\n\t\t\tdemo on\n\t\t}"})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--test", "--test-reporter=spec", "widget-feedback.test.mjs")
	cmd.Dir = browserTestDir
	cmd.Env = append(os.Environ(), "WIKIGATE_URL="+g.url, "CHROMIUM_PATH="+chromium,
		"WIKIGATE_ARTIFACTS="+artifactsDir(t), "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	t.Logf("node --test widget-feedback.test.mjs (in tests/browser):\n%s", out)
	if err != nil {
		t.Fatalf("the browser test failed: %v", err)
	}
}
