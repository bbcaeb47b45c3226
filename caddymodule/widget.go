package caddymodule

import (
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/wikigate/wikigate/widget"
)

// WidgetConfig is the `widget` block: the gate serves the <wikigate-ask>
// component at widget.ScriptPath, and with `demo on` a demo page at /demo/
// (docs/docs-sites.md "The widget"). Without the block neither is served.
type WidgetConfig struct {
	// Demo serves /demo/, a page embedding the component. Default off.
	Demo *bool `json:"demo,omitempty"`
}

func (c *WidgetConfig) unmarshal(d *caddyfile.Dispenser) error {
	return parseBlock(d, "widget", map[string]func() error{
		"demo": func() error { return onOff(d, &c.Demo) },
	})
}

func (c *WidgetConfig) handler() *widget.Handler {
	if c == nil {
		return nil
	}
	return &widget.Handler{Demo: c.Demo != nil && *c.Demo}
}
