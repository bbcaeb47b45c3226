package ingest

import (
	"fmt"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// frontMatter holds the Docusaurus front matter keys ingest reads; others
// are ignored, as Docusaurus itself ignores unknown ones.
type frontMatter struct {
	Title      string `yaml:"title"`
	Slug       string `yaml:"slug"`
	Project    string `yaml:"project"`
	Status     string `yaml:"status"`
	Updated    string `yaml:"updated"`
	Date       string `yaml:"date"`
	LastUpdate struct {
		Date string `yaml:"date"`
	} `yaml:"last_update"`
}

// splitFrontMatter separates a leading "---" YAML block from the body; a
// page without one has empty front matter.
func splitFrontMatter(src string) (frontMatter, string, error) {
	var fm frontMatter
	src = strings.ReplaceAll(src, "\r\n", "\n")
	if !strings.HasPrefix(src, "---\n") {
		return fm, src, nil
	}
	head, body, ok := strings.Cut(src[4:], "\n---\n")
	if !ok {
		if h, found := strings.CutSuffix(src[4:], "\n---"); found {
			head, body, ok = h, "", true
		}
	}
	if !ok {
		return fm, "", fmt.Errorf("front matter: no closing ---")
	}
	if err := yaml.Unmarshal([]byte(head), &fm); err != nil {
		return fm, "", fmt.Errorf("front matter: %w", err)
	}
	return fm, strings.TrimLeft(body, "\n"), nil
}

// updatedAt is the first date the front matter gives (Docusaurus
// last_update.date, then updated, then date); zero when none.
func (fm frontMatter) updatedAt() (time.Time, error) {
	for _, s := range []string{fm.LastUpdate.Date, fm.Updated, fm.Date} {
		if s == "" {
			continue
		}
		for _, layout := range []string{time.RFC3339, "2006-01-02", "01/02/2006"} {
			if t, err := time.Parse(layout, s); err == nil {
				return t.UTC(), nil
			}
		}
		return time.Time{}, fmt.Errorf("front matter date %q: want YYYY-MM-DD or RFC 3339", s)
	}
	return time.Time{}, nil
}
