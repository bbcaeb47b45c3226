// Package policycopy copies the team's policy folder for a benchmark run:
// its .rego and .json files without the team's tests (*_test.rego), with
// data.json changed the way the run needs (the benchmarks' commands
// unlimited and highlimits differ only in that change).
package policycopy

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Copy copies src's policy files into dst (created if missing), passing
// data.json's top-level object through editData on the way.
func Copy(src, dst string, editData func(data map[string]any) error) error {
	if err := os.MkdirAll(dst, 0o700); err != nil {
		return err
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !isPolicyFile(name) {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			return err
		}
		if name == "data.json" {
			if raw, err = edited(raw, editData); err != nil {
				return err
			}
		}
		if err := os.WriteFile(filepath.Join(dst, name), raw, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// isPolicyFile: the gate loads .rego and .json; the team's tests stay out.
func isPolicyFile(name string) bool {
	if strings.HasSuffix(name, "_test.rego") {
		return false
	}
	return strings.HasSuffix(name, ".rego") || strings.HasSuffix(name, ".json")
}

func edited(raw []byte, editData func(map[string]any) error) ([]byte, error) {
	var data map[string]any
	if err := json.Unmarshal(raw, &data); err != nil {
		return nil, fmt.Errorf("data.json: %w", err)
	}
	if err := editData(data); err != nil {
		return nil, err
	}
	return json.Marshal(data)
}
