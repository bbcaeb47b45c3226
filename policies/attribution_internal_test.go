package policies

import (
	"strconv"
	"testing"
)

// The traced evaluations a flood of distinct denials may cost are bounded
// (a burst, then attributionsPerSecond), and the memo of rules by code and
// reason stays within attributionMemo entries.
func TestAttributionIsBounded(t *testing.T) {
	t.Parallel()
	a := newAttributions()
	allowed := 0
	for range 10 * attributionBurst {
		if a.allow() {
			allowed++
		}
	}
	if allowed >= 10*attributionBurst || allowed < attributionBurst {
		t.Errorf("%d of %d traced evaluations allowed at once, want about the burst of %d", allowed, 10*attributionBurst, attributionBurst)
	}
	for i := range attributionMemo + 10 {
		a.put(strconv.Itoa(i), []Rule{{File: "x.rego", Line: i}})
	}
	if n := len(a.rules); n > attributionMemo {
		t.Errorf("memo holds %d entries, over %d", n, attributionMemo)
	}
	if r, ok := a.get(strconv.Itoa(attributionMemo + 9)); !ok || r[0].Line != attributionMemo+9 {
		t.Errorf("the latest entry is not remembered: %v %v", r, ok)
	}
}
