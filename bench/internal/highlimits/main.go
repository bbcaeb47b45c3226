// Command highlimits copies a policy folder without its tests and with
// every rate limit in data.limits raised to one value: bench/stores.sh
// measures what checking the budgets costs (in process, or one Redis round
// trip each) on calls that stay under them, which the shipped limits would
// refuse after the first seconds of a load run.
//
//	go run ./bench/internal/highlimits rego /tmp/bench-policy 1000000000
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: highlimits <policy dir> <copy dir> <requests per window>")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[3])
	if err == nil {
		err = copyPolicy(os.Args[1], os.Args[2], n)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "highlimits:", err)
		os.Exit(1)
	}
}

func copyPolicy(src, dst string, n int) error {
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
			if raw, err = raised(raw, n); err != nil {
				return err
			}
		}
		if err := os.WriteFile(filepath.Join(dst, name), raw, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// raised sets every number under data.limits to n.
func raised(raw []byte, n int) ([]byte, error) {
	var data map[string]any
	if err := json.Unmarshal(raw, &data); err != nil {
		return nil, fmt.Errorf("data.json: %w", err)
	}
	limits, ok := data["limits"]
	if !ok {
		return nil, errors.New("data.json has no limits to raise")
	}
	data["limits"] = setNumbers(limits, n)
	return json.Marshal(data)
}

func setNumbers(v any, n int) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = setNumbers(x, n)
		}
		return v
	case float64:
		return n
	default:
		return v
	}
}
