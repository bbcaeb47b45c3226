package wikigatecmd

import (
	"slices"
	"testing"
)

// The addresses a reload compares: every site's and the admin endpoint's.
func TestListenAddresses(t *testing.T) {
	raw := []byte(`{"admin":{"listen":"unix/data/admin.sock|0600"},"apps":{"http":{"servers":{
		"srv0":{"listen":[":8080"]},"srv1":{"listen":[":7700",":8080"]}}}}}`)
	want := []string{"admin unix/data/admin.sock|0600", "site :7700", "site :8080"}
	if got := listenAddresses(raw); !slices.Equal(got, want) {
		t.Fatalf("listenAddresses = %v, want %v", got, want)
	}
	if got := minus(want, []string{"site :7700"}); !slices.Equal(got, []string{"admin unix/data/admin.sock|0600", "site :8080"}) {
		t.Fatalf("minus = %v", got)
	}
}
