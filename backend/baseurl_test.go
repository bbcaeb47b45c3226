package backend

import (
	"strings"
	"testing"
)

func TestBaseURL(t *testing.T) {
	for raw, want := range map[string]string{
		"http://meili:7700":              "",
		"https://host/ragflow/":          "",
		"":                               "absolute http(s)",
		"ragflow:9380":                   "absolute http(s)",
		"ftp://meili":                    "absolute http(s)",
		"http://":                        "absolute http(s)",
		"http://%zz":                     "absolute http(s)",
		"http://user:secret@meili:7700":  "credentials",
		"http://meili:7700/?key=x":       "query or fragment",
		"http://meili:7700/#top":         "query or fragment",
		"https://host/ragflow/?x=1#frag": "query or fragment",
	} {
		u, err := BaseURL(raw)
		switch {
		case want == "" && (err != nil || u.String() != raw):
			t.Errorf("%q: %v, %v", raw, u, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%q: %v, want an error about %s", raw, err, want)
		case err != nil && strings.Contains(err.Error(), "secret"):
			t.Errorf("%q: error %v shows the password", raw, err)
		}
	}
}
