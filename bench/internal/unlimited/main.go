// Command unlimited copies a policy folder without its rate limits
// (data.limits) and without its tests: a benchmark drives thousands of
// calls a second from one agent, which the shipped limits would turn into
// 429s, so the run would measure refusals instead of the gate's work.
//
//	go run ./bench/internal/unlimited rego /tmp/bench-policy
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: unlimited <policy dir> <copy dir>")
		os.Exit(2)
	}
	if err := copyPolicy(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "unlimited:", err)
		os.Exit(1)
	}
}

func copyPolicy(src, dst string) error {
	if err := os.MkdirAll(dst, 0o700); err != nil {
		return err
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || strings.HasSuffix(name, "_test.rego") || !(strings.HasSuffix(name, ".rego") || strings.HasSuffix(name, ".json")) {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			return err
		}
		if name == "data.json" {
			if raw, err = withoutLimits(raw); err != nil {
				return err
			}
		}
		if err := os.WriteFile(filepath.Join(dst, name), raw, 0o600); err != nil {
			return err
		}
	}
	return nil
}

func withoutLimits(raw []byte) ([]byte, error) {
	var data map[string]any
	if err := json.Unmarshal(raw, &data); err != nil {
		return nil, fmt.Errorf("data.json: %w", err)
	}
	delete(data, "limits")
	return json.Marshal(data)
}
