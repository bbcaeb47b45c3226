package wikigatecmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"strings"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"
)

// IsReloadCall reports whether args run `wikigate reload`, which
// CheckReload looks at before Caddy's own command sends the config.
func IsReloadCall(args []string) bool { return len(args) > 1 && args[1] == "reload" }

// CheckReload refuses a reload that would move the running gate to other
// listen addresses (its sites or its admin endpoint), unless --force is
// given, and then warns. A reload adapts the Caddyfile with the reloading
// shell's environment, not the running gate's: a WIKIGATE_LISTEN_PORT set
// in one shell and not the other silently moved a live gate to another
// port. Anything this check cannot read (flags, config, an unreachable
// gate) is left to Caddy's reload to report.
func CheckReload(args []string, stderr io.Writer) error {
	fl, err := parseFlags(args[2:], map[string]bool{"config": true, "c": true, "adapter": true, "a": true, "address": true},
		map[string]bool{"force": true, "f": true})
	if err != nil {
		return nil
	}
	adapter := first(fl["adapter"], fl["a"])
	next, file, _, err := caddycmd.LoadConfig(first(fl["config"], fl["c"]), adapter)
	if err != nil || file == "" {
		return nil
	}
	adminAddr, err := caddycmd.DetermineAdminAPIAddress(fl["address"], next, file, adapter)
	if err != nil {
		return nil
	}
	current, err := runningConfig(adminAddr)
	if err != nil {
		return nil
	}
	was, will := listenAddresses(current), listenAddresses(next)
	if slices.Equal(was, will) {
		return nil
	}
	msg := fmt.Sprintf("this reload moves the gate: it would stop listening on %s and listen on %s instead "+
		"(the Caddyfile's {$WIKIGATE_*} placeholders take this shell's variables, not the running gate's)",
		orNothing(minus(was, will)), orNothing(minus(will, was)))
	if fl["force"] == "true" || fl["f"] == "true" {
		fmt.Fprintln(stderr, "warning: "+msg+"; reloading as --force asks")
		return nil
	}
	return errors.New(msg + ": set the same variables as the running gate, or reload with --force to move it")
}

// runningConfig is the running gate's config, from its admin endpoint.
func runningConfig(adminAddr string) ([]byte, error) {
	resp, err := caddycmd.AdminAPIRequest(adminAddr, http.MethodGet, "/config/", nil, nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("admin endpoint answered %s", resp.Status)
	}
	return io.ReadAll(io.LimitReader(resp.Body, 16<<20))
}

// listenAddresses lists a config's listen addresses, sorted: each HTTP
// server's ("site <addr>") and the admin endpoint's ("admin <addr>").
func listenAddresses(raw []byte) []string {
	var cfg struct {
		Admin *struct {
			Listen string `json:"listen"`
		} `json:"admin"`
		Apps struct {
			HTTP struct {
				Servers map[string]struct {
					Listen []string `json:"listen"`
				} `json:"servers"`
			} `json:"http"`
		} `json:"apps"`
	}
	if json.Unmarshal(raw, &cfg) != nil {
		return nil
	}
	var out []string
	for _, s := range cfg.Apps.HTTP.Servers {
		for _, l := range s.Listen {
			out = append(out, "site "+l)
		}
	}
	if cfg.Admin != nil && cfg.Admin.Listen != "" {
		out = append(out, "admin "+cfg.Admin.Listen)
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// minus lists the addresses of a that b lacks.
func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

func orNothing(addrs []string) string {
	if len(addrs) == 0 {
		return "nothing"
	}
	return strings.Join(addrs, ", ")
}
