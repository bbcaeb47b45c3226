// Package bench holds wikigate's Go micro-benchmarks of the response side
// (normalize_test.go, token_test.go) and the load benchmark (run.sh); see
// README.md. The policy decision benchmarks are next to the engine, in
// policies/bench_test.go.
package bench
