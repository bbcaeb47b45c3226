package audit

import "go.uber.org/zap/zapcore"

// Tokens is what a call's generation cost: the model's input and output
// tokens as the backend reported them, or the gate's estimate when it
// reported none (Estimated). Zero when nothing was generated.
type Tokens struct {
	Input     int
	Output    int
	Estimated bool
}

// AddTokens counts one generation's tokens; a call whose counts are
// partly estimated is marked estimated.
func (r *Record) AddTokens(input, output int, estimated bool) {
	r.Tokens.Input += input
	r.Tokens.Output += output
	r.Tokens.Estimated = r.Tokens.Estimated || estimated
}

// Generated reports whether the call generated anything to count.
func (t Tokens) Generated() bool { return t.Input > 0 || t.Output > 0 }

type tokensMarshaler Tokens

func (t *tokensMarshaler) MarshalLogObject(enc zapcore.ObjectEncoder) error {
	enc.AddInt("input", t.Input)
	enc.AddInt("output", t.Output)
	enc.AddBool("estimated", t.Estimated)
	return nil
}
