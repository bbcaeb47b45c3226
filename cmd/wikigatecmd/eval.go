package wikigatecmd

import (
	"os"
	"time"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"

	"github.com/wikigate/wikigate/evalrun"
)

// init registers `wikigate eval`, which measures a running gate's answer
// quality against an evaluation set (docs/eval.md "Measuring answer quality").
func init() {
	caddycmd.RegisterCommand(caddycmd.Command{
		Name:      "eval",
		Usage:     "--set FILE [--gate URL] [--json] [--min-hit5 X] [--max-leaks N] ... | --from-feedback STORE",
		Short:     "Measures a running gate's search and answers against an evaluation set",
		Long:      evalLong,
		CobraFunc: adopt(evalCommand),
	})
}

const evalLong = `Asks every case of an evaluation set (JSON or YAML) of a running gate,
through its public routes and as the case's caller (people's /answer/search
and /answer/ask for anonymous and human callers, agents' /agent/tools/search
and /agent/tools/ask for agent tokens and API keys; tokens are read from the
environment variables the set names), and reports per case and in total:
search hit@1, hit@5 and MRR, answer rate, citation precision and recall,
no-answer precision and recall, restricted-content leaks, correctness per
confidence level and latency p50/p95.

  wikigate eval --set evalsets/samplewiki.yaml --gate http://127.0.0.1:8080 --min-hit5 0.5

Exit status: 0 ok, 1 a threshold missed (leaks above --max-leaks, default 0,
always fail), 2 bad flags or set file, or a gate error (unreachable, 5xx, a
refused credential).

--from-feedback STORE reads a feedback store instead (data/feedback.db, the
gate's bbolt file, which a running gate holds locked: stop it or read a copy;
or the postgres:// URL of the shared store) and prints candidate cases, in
the set format, from its open records: reported no-answers (qa_no_answer)
and answers rated not helpful (qa_answer). Each starts as unanswerable; the
docs team reviews them and moves them into its set.

  wikigate eval --from-feedback data/feedback.db > candidates.yaml`

func evalCommand() *cobra.Command {
	o := evalrun.Options{Thresholds: evalrun.NoThresholds()}
	c := &cobra.Command{
		Use:   "eval --set FILE",
		Short: "Measures a running gate's answer quality",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return caddycmd.WrapCommandFuncForCobra(func(caddycmd.Flags) (int, error) {
				if isTerminal(os.Stderr) { // stderr: stdout stays a clean table or JSON
					o.Progress = cmd.ErrOrStderr()
				}
				o.Notes = cmd.ErrOrStderr()
				return evalrun.Main(cmd.Context(), o, cmd.OutOrStdout())
			})(cmd, args)
		},
	}
	f := c.Flags()
	f.StringVar(&o.SetFile, "set", "", "evaluation set file (JSON or YAML)")
	f.StringVar(&o.GateURL, "gate", "http://127.0.0.1:8080", "the running gate's base URL")
	f.StringVar(&o.FromFeedback, "from-feedback", "", "print candidate cases from a feedback store's open records (data/feedback.db or postgres://…) instead of running a set")
	f.BoolVar(&o.JSON, "json", false, "print the report as JSON")
	f.IntVar(&o.Concurrency, "concurrency", 2, "cases asked at once")
	f.DurationVar(&o.Timeout, "timeout", 30*time.Second, "per-request timeout")
	t := &o.Thresholds
	f.Float64Var(&t.MinHit1, "min-hit1", evalrun.Unset, "fail under this search hit@1")
	f.Float64Var(&t.MinHit5, "min-hit5", evalrun.Unset, "fail under this search hit@5")
	f.Float64Var(&t.MinMRR, "min-mrr", evalrun.Unset, "fail under this search MRR")
	f.Float64Var(&t.MinAnswerRate, "min-answer-rate", evalrun.Unset, "fail under this answer rate")
	f.Float64Var(&t.MinCitePrec, "min-citation-precision", evalrun.Unset, "fail under this citation precision")
	f.Float64Var(&t.MinCiteRecall, "min-citation-recall", evalrun.Unset, "fail under this citation recall")
	f.Float64Var(&t.MinNoAnswerPrec, "min-noanswer-precision", evalrun.Unset, "fail under this no-answer precision")
	f.Float64Var(&t.MinNoAnswerRecall, "min-noanswer-recall", evalrun.Unset, "fail under this no-answer recall")
	f.IntVar(&t.MaxLeaks, "max-leaks", 0, "fail over this many leaked restricted paths")
	return c
}

// isTerminal reports whether f is a terminal (a character device), where a
// progress line helps and does not pollute a log.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
