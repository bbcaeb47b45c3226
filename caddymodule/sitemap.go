package caddymodule

import (
	"fmt"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"

	"github.com/wikigate/wikigate/sitemap"
)

// siteResolver loads the site mapping named by site_mapping: the file
// `wikigate ingest --map` read, so the gate maps a question's page.url to
// the page ingest stored (docs/ingest.md, One site mapping). Without the option
// the gate maps no URL: every page.url keeps the default scope.
func (h *Handler) siteResolver(repl *caddy.Replacer) (*sitemap.Resolver, error) {
	if h.SiteMapping == "" {
		h.logger.Warn("no site_mapping: a question's page.url cannot be mapped to its page, so it keeps the default scope")
		return nil, nil
	}
	file := repl.ReplaceKnown(h.SiteMapping, "")
	m, err := sitemap.Load(file)
	if err != nil {
		return nil, fmt.Errorf("site_mapping: %w", err)
	}
	r, missing, err := sitemap.NewResolver(m)
	if err != nil {
		return nil, fmt.Errorf("site_mapping: %w", err)
	}
	if missing != "" {
		h.logger.Warn("site_mapping: " + missing)
	}
	h.logger.Debug("site mapping loaded", zap.String("file", file), zap.String("url_base", m.URL.Base))
	return r, nil
}
