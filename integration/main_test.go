package integration

import (
	"os"
	"testing"
)

// TestMain removes the gate binary the tests built (gateBinary) once they
// have all run.
func TestMain(m *testing.M) {
	code := m.Run()
	if builtGate.dir != "" {
		_ = os.RemoveAll(builtGate.dir)
	}
	os.Exit(code)
}
