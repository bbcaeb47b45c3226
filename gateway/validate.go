package gateway

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/scope"
)

// validateStandard checks and normalizes the standard request in place:
// question, scope and page reference. Field names in messages are the JSON
// names the caller sent.
func validateStandard(std *protocol.Standard, needQuestion bool) error {
	std.Question = strings.TrimSpace(std.Question)
	if err := checkQuestion(std.Question, needQuestion); err != nil {
		return err
	}
	if std.Caller != nil && std.Caller.Type != "" && std.Caller.Type != "agent" && std.Caller.Type != "human" {
		return invalid("caller.type must be \"agent\" or \"human\"")
	}
	if std.Caller != nil && utf8.RuneCountInString(std.Caller.Purpose) > protocol.MaxIdentifierRune {
		return invalid(fmt.Sprintf("caller.purpose is longer than %d characters", protocol.MaxIdentifierRune))
	}
	s, err := scope.Normalize(std.Scope)
	if err != nil {
		return err
	}
	std.Scope = s
	return normalizePage(std.Page)
}

func checkQuestion(q string, required bool) error {
	if q == "" {
		if required {
			return invalid("question is required and must not be empty")
		}
		return nil
	}
	if !utf8.ValidString(q) {
		return invalid("question must be valid UTF-8")
	}
	if n := utf8.RuneCountInString(q); n > protocol.MaxQuestionRunes {
		return invalid(fmt.Sprintf("question is longer than %d characters", protocol.MaxQuestionRunes))
	}
	return nil
}

func normalizePage(p *protocol.PageRef) error {
	if p == nil {
		return nil
	}
	if p.Path == "" && p.URL == "" {
		return invalid("page needs a path or a url")
	}
	if p.Path != "" && p.URL != "" {
		// Two names for the page could disagree; which one sets the
		// scope would be the gate's guess, not the caller's.
		return invalid("page takes a path or a url, not both")
	}
	if p.URL != "" {
		path, version, err := pagePathFromURL(p.URL)
		if err != nil {
			return err
		}
		p.Version, p.Path = version, path
	}
	if p.Path != "" {
		np, err := scope.NormalizePath("page.path", p.Path)
		if err != nil {
			return err
		}
		p.Path = np
	}
	return nil
}

// pagePathFromURL maps a docs-site URL back to the page's repository path,
// the inverse of how pages are published (samplewiki.pageURL):
// /system/x/ → publish/system/x/index.md. Without the trailing slash,
// /system/x/y may be the page y.md or the section y/ served without its
// slash (docs hosts do both), so it maps to publish/system/x/y, which the
// policy reads either way: a page's section is its parent directory, as
// for y.md, and a project's root stays inside the project (as y.md would
// not). A URL naming a .md file keeps it. A leading version segment
// (/v1.0/x/) is not part of the path: it is the page's docs version,
// returned apart ("" for an unversioned page), which the policy makes the
// default scope's version.
func pagePathFromURL(raw string) (path, version string, err error) {
	if len(raw) > protocol.MaxPathBytes {
		return "", "", invalid("page.url is too long")
	}
	u, err := url.Parse(raw)
	if err != nil || u.Path == "" || !strings.HasPrefix(u.Path, "/") {
		return "", "", invalid("page.url must be a URL whose path starts with /")
	}
	p := strings.TrimPrefix(u.Path, "/")
	if first, rest, ok := strings.Cut(p, "/"); ok && versionSegment.MatchString(first) {
		p, version = rest, first
	}
	if p == "" || strings.HasSuffix(p, "/") {
		p += "index.md"
	}
	path, err = scope.NormalizePath("page.url", "publish/"+p)
	return path, version, err
}

var versionSegment = regexp.MustCompile(`^v[0-9]+(\.[0-9]+)*$`)

func invalid(msg string) error { return protocol.NewError(protocol.CodeInvalidRequest, msg) }
