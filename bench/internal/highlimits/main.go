// Command highlimits copies a policy folder without its tests and with
// every rate limit in data.limits raised to one value: bench/stores.sh
// measures what checking the budgets costs (in process, or one Redis round
// trip each) on calls that stay under them, which the shipped limits would
// refuse after the first seconds of a load run.
//
//	go run ./bench/internal/highlimits rego /tmp/bench-policy 1000000000
package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/wikigate/wikigate/bench/internal/policycopy"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: highlimits <policy dir> <copy dir> <requests per window>")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[3])
	if err == nil {
		err = policycopy.Copy(os.Args[1], os.Args[2], func(data map[string]any) error { return raiseLimits(data, n) })
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "highlimits:", err)
		os.Exit(1)
	}
}

// raiseLimits sets every number under data.limits to n.
func raiseLimits(data map[string]any, n int) error {
	limits, ok := data["limits"]
	if !ok {
		return errors.New("data.json has no limits to raise")
	}
	data["limits"] = setNumbers(limits, n)
	return nil
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
