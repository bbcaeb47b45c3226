// Command ingestgen writes the docs tree bench/ingest.sh loads: a
// Docusaurus site of N generated pages (default 1,000) over ten projects,
// each page a few sections of prose with a table, a list, a code block,
// an admonition and, in one page of four, MDX components, as real docs
// carry them, plus the mapping file for it. The text is generated from a
// fixed seed, so every run writes the same tree.
package main

import (
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

var words = strings.Fields(`agent memory gateway route token cache index search answer policy grant
	project version status page section anchor session limit quota timeout retry backend dataset
	chunk citation scope deploy replica cluster volume secret config option default value key
	request response stream event header proxy upstream health metric alert dashboard runbook
	incident rollback release schema field table column row filter sort rank score budget window`)

func main() {
	out := flag.String("out", "", "folder to write the site into (created)")
	pages := flag.Int("pages", 1000, "pages to write")
	flag.Parse()
	if *out == "" {
		log.Fatal("-out is required")
	}
	r := rand.New(rand.NewPCG(1, 2))
	var mapping strings.Builder
	mapping.WriteString("pathPrefix: publish\ncurrentVersion: main\nprojects:\n")
	for p := range 10 {
		fmt.Fprintf(&mapping, "  - {id: bench-%d, path: project-%d}\n", p, p)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(*out, "wiki-map.yaml"), []byte(mapping.String()), 0o644); err != nil {
		log.Fatal(err)
	}
	for i := range *pages {
		ext := ".md"
		if i%4 == 0 {
			ext = ".mdx"
		}
		file := filepath.Join(*out, "site", "docs", fmt.Sprintf("project-%d", i%10), fmt.Sprintf("area-%d", i%7), fmt.Sprintf("page-%d%s", i, ext))
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(page(r, i, ext == ".mdx")), 0o644); err != nil {
			log.Fatal(err)
		}
	}
}

func sentence(r *rand.Rand) string {
	n := 8 + r.IntN(10)
	w := make([]string, n)
	for i := range w {
		w[i] = words[r.IntN(len(words))]
	}
	s := strings.Join(w, " ")
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

func paragraph(r *rand.Rand) string {
	var s []string
	for range 3 + r.IntN(4) {
		s = append(s, sentence(r))
	}
	return strings.Join(s, " ")
}

func page(r *rand.Rand, i int, mdx bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "---\ntitle: Page %d\n---\n", i)
	if mdx {
		b.WriteString("import Tabs from '@theme/Tabs';\nimport TabItem from '@theme/TabItem';\n\n")
	}
	fmt.Fprintf(&b, "# Page %d\n\n%s\n\n", i, paragraph(r))
	for s := range 3 + r.IntN(3) {
		fmt.Fprintf(&b, "## %s %d\n\n%s\n\n", words[r.IntN(len(words))], s, paragraph(r))
		switch s % 4 {
		case 0:
			fmt.Fprintf(&b, "| option | meaning |\n|---|---|\n| `%s` | %s |\n| `%s` | %s |\n\n", words[r.IntN(len(words))], sentence(r), words[r.IntN(len(words))], sentence(r))
		case 1:
			fmt.Fprintf(&b, "- %s\n- %s &amp; more\n- <span id=\"x%d\"></span>%s\n\n", sentence(r), sentence(r), s, sentence(r))
		case 2:
			fmt.Fprintf(&b, "```yaml\n%s: %d\n%s: <value>\n```\n\n", words[r.IntN(len(words))], r.IntN(100), words[r.IntN(len(words))])
		case 3:
			fmt.Fprintf(&b, ":::note Remember\n%s\n:::\n\n", sentence(r))
		}
		if mdx && s == 1 {
			fmt.Fprintf(&b, "<Tabs>\n  <TabItem value=\"a\" label=\"First\">\n    %s\n  </TabItem>\n  <TabItem value=\"b\" label=\"Second\">\n    %s\n  </TabItem>\n</Tabs>\n\n{/* reviewed */}\n\n", sentence(r), sentence(r))
		}
	}
	return b.String()
}
