package audit

import (
	"reflect"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// A call that generated writes its token counts, marked estimated when any
// generation's were; a call that generated nothing writes no tokens field.
func TestRecordCarriesTokens(t *testing.T) {
	core, logs := observer.New(zap.InfoLevel)
	l := NewLogger(zap.New(core), false)
	r := record()
	r.AddTokens(800, 50, false)
	r.AddTokens(100, 20, true)
	l.Write(r)
	l.Write(record())
	got := logs.All()[0].ContextMap()["tokens"]
	want := map[string]any{"input": 900, "output": 70, "estimated": true}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("tokens = %v, want %v", got, want)
	}
	if _, ok := logs.All()[1].ContextMap()["tokens"]; ok {
		t.Fatal("a call that generated nothing wrote a tokens field")
	}
}
