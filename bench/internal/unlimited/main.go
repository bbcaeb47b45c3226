// Command unlimited copies a policy folder without its rate limits
// (data.limits) and without its tests: a benchmark drives thousands of
// calls a second from one agent, which the shipped limits would turn into
// 429s, so the run would measure refusals instead of the gate's work.
//
//	go run ./bench/internal/unlimited rego /tmp/bench-policy
package main

import (
	"fmt"
	"os"

	"github.com/wikigate/wikigate/bench/internal/policycopy"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: unlimited <policy dir> <copy dir>")
		os.Exit(2)
	}
	if err := policycopy.Copy(os.Args[1], os.Args[2], withoutLimits); err != nil {
		fmt.Fprintln(os.Stderr, "unlimited:", err)
		os.Exit(1)
	}
}

func withoutLimits(data map[string]any) error {
	delete(data, "limits")
	return nil
}
