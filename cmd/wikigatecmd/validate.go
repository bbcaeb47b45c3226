package wikigatecmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/caddyserver/caddy/v2"
	caddycmd "github.com/caddyserver/caddy/v2/cmd"
)

// IsValidateCall reports whether args run `wikigate validate`, which
// Validate answers instead of Caddy's own command.
func IsValidateCall(args []string) bool { return len(args) > 1 && args[1] == "validate" }

// Validate checks a configuration as `caddy validate` does, but writes
// nothing: Caddy's own validation provisions the log writers, which
// creates every log file the configuration names (an empty audit.log and
// access.log, or an error when their folder does not exist yet). Here each
// file-backed log is checked (its folder must exist, as `run` needs it)
// and replaced by a discarding writer before the rest is provisioned. The
// data directory, admin socket and key file are never created either:
// validation opens no store and starts no admin endpoint.
func Validate(args []string, stdout, stderr io.Writer) int {
	fl, err := parseFlags(args[2:], map[string]bool{"config": true, "c": true, "adapter": true, "a": true, "envfile": true}, nil)
	if err != nil {
		fmt.Fprintln(stderr, "validate: "+err.Error())
		return caddy.ExitCodeFailedStartup
	}
	if err := loadEnvFile(fl["envfile"]); err != nil {
		fmt.Fprintln(stderr, "validate: "+err.Error())
		return caddy.ExitCodeFailedStartup
	}
	raw, _, _, err := caddycmd.LoadConfig(first(fl["config"], fl["c"]), first(fl["adapter"], fl["a"]))
	if err == nil {
		raw, err = withoutLogFiles(raw)
	}
	if err == nil {
		var cfg *caddy.Config
		if err = json.Unmarshal(raw, &cfg); err == nil {
			err = caddy.Validate(cfg)
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "validate: "+err.Error())
		return caddy.ExitCodeFailedStartup
	}
	fmt.Fprintln(stdout, "Valid configuration")
	return caddy.ExitCodeSuccess
}

// withoutLogFiles checks every log writer with a filename (Caddy's file
// writer, the audit file writer) and swaps it for a discarding one.
func withoutLogFiles(raw []byte) ([]byte, error) {
	var cfg map[string]any
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return nil, err
	}
	logging, _ := cfg["logging"].(map[string]any)
	logs, _ := logging["logs"].(map[string]any)
	var problems []error
	for name, l := range logs {
		logCfg, _ := l.(map[string]any)
		writer, _ := logCfg["writer"].(map[string]any)
		file, _ := writer["filename"].(string)
		if file == "" {
			continue
		}
		if st, err := os.Stat(filepath.Dir(file)); err != nil || !st.IsDir() {
			problems = append(problems, fmt.Errorf("log %q writes to %s, whose folder does not exist", name, file))
		}
		logCfg["writer"] = map[string]any{"output": "discard"}
	}
	if err := errors.Join(problems...); err != nil {
		return nil, err
	}
	return json.Marshal(cfg)
}

// parseFlags reads --name value, --name=value, -n value and boolean flags
// (bools); other arguments are refused, as Caddy's command would.
func parseFlags(args []string, valued, bools map[string]bool) (map[string]string, error) {
	out := map[string]string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			return nil, fmt.Errorf("unexpected argument %q", a)
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case bools[name]:
			out[name] = "true"
			if hasValue {
				out[name] = value
			}
		case valued[name] && hasValue:
			out[name] = value
		case valued[name] && i+1 < len(args):
			i++
			out[name] = args[i]
		default:
			return nil, fmt.Errorf("unknown flag or missing value: %s", a)
		}
	}
	return out, nil
}

// loadEnvFile sets the KEY=VALUE lines of file (Caddy's --envfile: blank
// lines and # comments skipped, surrounding quotes dropped).
func loadEnvFile(file string) error {
	if file == "" {
		return nil
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	for _, line := range strings.Split(string(raw), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(strings.TrimPrefix(line, "export "), "=")
		if !ok {
			return fmt.Errorf("%s: %q is not KEY=VALUE", file, line)
		}
		_ = os.Setenv(strings.TrimSpace(k), strings.Trim(strings.TrimSpace(v), `"'`))
	}
	return nil
}

func first(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
