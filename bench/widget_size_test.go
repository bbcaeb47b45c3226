package bench

import (
	"bytes"
	"compress/gzip"
	"os"
	"regexp"
	"strconv"
	"testing"
)

// widgetFile is the <wikigate-ask> component as the gate embeds and serves it.
const widgetFile = "../widget/assets/wikigate-ask.js"

// widgetBudgetRule finds the budget in docs/docs-sites.md, "The widget".
var widgetBudgetRule = regexp.MustCompile(`Size budget: (\d+) KiB gzipped`)

// TestWidgetGzipSize prints the component's size, raw and gzipped (Go's
// gzip at BestCompression, about what `gzip -9 <file` writes), and fails
// when the gzipped size is over the budget docs/docs-sites.md states: the widget loads on
// every docs page, so it is held to a size. A size, unlike a time, is the
// same on every machine, so it may be asserted; WIDGET_SIZE.md records it
// per change (go test -run TestWidgetGzipSize -v ./bench/).
func TestWidgetGzipSize(t *testing.T) {
	raw, err := os.ReadFile(widgetFile)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zw.Write(raw); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	budget := widgetBudget(t)
	t.Logf("wikigate-ask.js: %d bytes, %d bytes gzipped (budget %d bytes, %.0f%% used)",
		len(raw), buf.Len(), budget, 100*float64(buf.Len())/float64(budget))
	if buf.Len() > budget {
		t.Errorf("wikigate-ask.js is %d bytes gzipped, over the budget of %d bytes in docs/docs-sites.md", buf.Len(), budget)
	}
}

// widgetBudget is the budget docs/docs-sites.md states, in bytes.
func widgetBudget(t *testing.T) int {
	t.Helper()
	readme, err := os.ReadFile("../docs/docs-sites.md")
	if err != nil {
		t.Fatal(err)
	}
	m := widgetBudgetRule.FindSubmatch(readme)
	if m == nil {
		t.Fatalf("docs/docs-sites.md states no %q", widgetBudgetRule)
	}
	kib, err := strconv.Atoi(string(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	return kib * 1024
}
