package main

import (
	"strings"
	"testing"
)

func TestTargetIsLoopbackOnly(t *testing.T) {
	for _, gate := range []string{"http://127.0.0.1:8080", "http://localhost:8080", "http://[::1]:8080"} {
		if _, err := newTarget(t.Context(), gate); err != nil {
			t.Errorf("newTarget(%s): %v", gate, err)
		}
	}
	for _, gate := range []string{"http://192.0.2.1:8080", "http://8.8.8.8", "https://127.0.0.1:8443", "127.0.0.1:8080", "ftp://127.0.0.1"} {
		if _, err := newTarget(t.Context(), gate); err == nil {
			t.Errorf("newTarget(%s) accepted a target it must refuse", gate)
		} else if strings.Contains(gate, "192.0.2.1") && !strings.Contains(err.Error(), "loopback") {
			t.Errorf("newTarget(%s): %v; want a loopback refusal", gate, err)
		}
	}
}
