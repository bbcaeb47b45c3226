package evalrun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTreeSets checks the shipped sets of the two real docs trees
// (ingest/testdata/trees): each loads, has the cases docs/eval.md promises,
// and every expected page is a page of its tree (page paths are
// publish/<tree>/<path under docs/>, as the tree's map.yaml maps them).
func TestTreeSets(t *testing.T) {
	for _, tree := range []string{"prettier", "httpx"} {
		t.Run(tree, func(t *testing.T) {
			s, err := LoadSet(filepath.Join("..", "evalsets", tree+".yaml"))
			if err != nil {
				t.Fatal(err)
			}
			kinds := map[string]int{}
			for _, c := range s.Cases {
				kinds[c.Kind]++
				for _, p := range c.Expected {
					rel, ok := strings.CutPrefix(p, "publish/"+tree+"/")
					file := filepath.Join("..", "ingest", "testdata", "trees", tree, "docs", rel)
					if _, err := os.Stat(file); !ok || err != nil {
						t.Errorf("case %s expects %s, which is not a page of %s (%v)", c.ID, p, tree, err)
					}
				}
			}
			if len(s.Cases) < 20 || kinds[KindAnswerable] < 15 || kinds[KindUnanswerable] < 5 || kinds[KindRestricted] < 3 {
				t.Errorf("set has %d cases %v; want at least 20, 15 answerable, 5 unanswerable, 3 restricted", len(s.Cases), kinds)
			}
		})
	}
}
