package gateway

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/wikigate/wikigate/audit"
	"github.com/wikigate/wikigate/protocol"
	"github.com/wikigate/wikigate/scope"
	"github.com/wikigate/wikigate/sitemap"
)

// validateStandard checks and normalizes the standard request in place:
// question, scope and page reference. Field names in messages are the JSON
// names the caller sent.
func validateStandard(std *protocol.Standard, needQuestion bool) error {
	std.Question = strings.TrimSpace(std.Question)
	if err := CheckQuestion(std.Question, needQuestion); err != nil {
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

// CheckQuestion checks a question's encoding and length (and presence when
// required), as every route that takes one does.
func CheckQuestion(q string, required bool) error {
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
		if len(p.URL) > protocol.MaxPathBytes {
			return invalid("page.url is too long")
		}
		if err := sitemap.CheckURL(p.URL); err != nil {
			return invalid(err.Error())
		}
		return nil
	}
	np, err := scope.NormalizePath("page.path", p.Path)
	if err != nil {
		return err
	}
	p.Path = np
	return nil
}

// resolvePage maps a valid page.url to the page's repository path and docs
// version through the site mapping ingest used (docs/ingest.md, One site mapping),
// so a question asked on any URL ingest stored is scoped to that page's
// project, version and section. A URL the mapping cannot place (outside
// url.base, or no mapping configured) leaves the page without a path:
// the question keeps the default scope, and rec says why.
func resolvePage(site *sitemap.Resolver, p *protocol.PageRef, rec *audit.Record) {
	if p == nil || p.URL == "" {
		return
	}
	if site == nil {
		rec.PageNote = "page.url not mapped: the gate has no site_mapping; default scope"
		return
	}
	t, err := site.Resolve(p.URL)
	if err == nil {
		t.Path, err = scope.NormalizePath("page.url", t.Path)
	}
	if err != nil {
		rec.PageNote = err.Error() + "; default scope"
		return
	}
	p.Path, p.Version = t.Path, t.Version
}

func invalid(msg string) error { return protocol.NewError(protocol.CodeInvalidRequest, msg) }
