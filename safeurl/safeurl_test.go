package safeurl

import (
	"net/url"
	"strings"
	"testing"
)

// The refused cases come from the vectors of the OWASP "XSS Filter Evasion
// Cheat Sheet" (javascript: spelled with case, entities, tabs, newlines,
// NULs and leading spaces), the WHATWG URL Standard's parsing rules (leading
// C0 controls and spaces stripped, tabs and newlines removed anywhere, "\"
// read as "/" in special schemes, "//" starting a host, "http:foo" being
// relative to an http base) and the web-platform-tests URL cases that
// exercise them. Each is one way a browser, or a renderer that decodes
// before it links, reaches something other than an http(s) page.
var refused = []struct{ name, url string }{
	{"javascript", "javascript:alert(1)"},
	{"javascript mixed case", "JaVaScRiPt:alert(document.domain)"},
	{"javascript upper", "JAVASCRIPT:alert(1)"},
	{"javascript with slashes", "javascript://%0Aalert(1)"},
	{"javascript after comment-like path", "javascript:/*--></title></style></textarea></script><svg/onload='+/\"/+/onmouseover=1/+/[*/[]/+alert(1)//'>"},
	{"vbscript", "vbscript:msgbox(1)"},
	{"livescript", "livescript:alert(1)"},
	{"data html", "data:text/html,<script>alert(1)</script>"},
	{"data base64", "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=="},
	{"data image svg", "data:image/svg+xml,<svg onload=alert(1)>"},
	{"file", "file:///etc/passwd"},
	{"ftp", "ftp://ftp.example/x"},
	{"mailto", "mailto:a@example.com"},
	{"blob", "blob:https://docs.example/0b1c"},
	{"filesystem", "filesystem:https://docs.example/temporary/x"},
	{"about", "about:blank"},
	{"custom scheme", "wikigate:open"},
	{"scheme with plus", "view-source:https://docs.example/"},
	{"http without slashes (relative to an http base)", "http:foo.com"},
	{"https one slash", "https:/docs.example/a"},
	{"https backslashes", "https:\\\\evil.example/"},
	{"https slash backslash", "https:/\\evil.example/"},
	{"https empty host", "https://"},
	{"https triple slash", "https:///evil.example/"},
	{"https userinfo", "https://user:pass@docs.example/"},
	{"https host lookalike userinfo", "https://docs.example@evil.example/"},
	{"https empty userinfo", "https://:@docs.example/"},
	{"http scheme colon colon", "http::@c:29"},
	{"protocol relative", "//evil.example/x"},
	{"triple slash", "///evil.example/x"},
	{"slash backslash", "/\\evil.example/x"},
	{"backslash slash", "\\/evil.example/x"},
	{"two backslashes", "\\\\evil.example\\x"},
	{"backslash path", "\\x"},
	{"leading space", " javascript:alert(1)"},
	{"leading space before https", " https://docs.example/"},
	{"trailing space", "/docs/a "},
	{"leading tab", "\tjavascript:alert(1)"},
	{"tab inside scheme", "jav\tascript:alert(1)"},
	{"newline inside scheme", "jav\nascript:alert(1)"},
	{"carriage return inside scheme", "jav\rascript:alert(1)"},
	{"NUL inside scheme", "java\x00script:alert(1)"},
	{"leading C0 control", "\x01javascript:alert(1)"},
	{"leading form feed", "\x0cjavascript:alert(1)"},
	{"DEL", "java\x7fscript:alert(1)"},
	{"space inside host", "https://docs .example/"},
	{"tab inside host", "http://example\t.\norg"},
	{"space inside path", "/docs/a b"},
	{"entity tab inside scheme", "jav&#x09;ascript:alert(1)"},
	{"entity newline inside scheme", "jav&#x0A;ascript:alert(1)"},
	{"entity carriage return inside scheme", "jav&#x0D;ascript:alert(1)"},
	{"decimal entities", "&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;&#97;&#108;&#101;&#114;&#116;&#40;&#39;&#88;&#83;&#83;&#39;&#41;"},
	{"decimal entities, leading zeros, no semicolons", "&#0000106&#0000097&#0000118&#0000097&#0000115&#0000099&#0000114&#0000105&#0000112&#0000116&#0000058&#0000097&#0000108&#0000101&#0000114&#0000116&#0000040&#0000039&#0000088&#0000083&#0000083&#0000039&#0000041"},
	{"hex entities, no semicolons", "&#x6A&#x61&#x76&#x61&#x73&#x63&#x72&#x69&#x70&#x74&#x3A&#x61&#x6C&#x65&#x72&#x74&#x28&#x27&#x58&#x53&#x53&#x27&#x29"},
	{"named entity colon", "javascript&colon;alert(1)"},
	{"named entity tab", "java&Tab;script:alert(1)"},
	{"named entity newline", "java&NewLine;script:alert(1)"},
	{"entity slashes", "&#x2F;&#x2F;evil.example/"},
	{"entity backslash", "/&#x5C;evil.example/"},
	{"percent colon", "javascript%3Aalert(1)"},
	{"percent scheme letters", "%6Aavascript:alert(1)"},
	{"percent tab inside scheme", "java%09script:alert(1)"},
	{"percent slashes", "%2F%2Fevil.example/"},
	{"percent slash after slash", "/%2Fevil.example/"},
	{"percent backslash after slash", "/%5Cevil.example/"},
	{"double percent-encoded slashes", "%252F%252Fevil.example/"},
	{"percent then entity", "%26%23106;avascript:alert(1)"},
	{"entity then percent", "&#x25;2F&#x25;2Fevil.example/"},
	{"no-break space before scheme", "\u00a0javascript:alert(1)"},
	{"ideographic space before scheme", "\u3000javascript:alert(1)"},
	{"zero-width space inside scheme", "java\u200bscript:alert(1)"},
	{"byte-order mark before scheme", "\ufeffjavascript:alert(1)"},
	{"right-to-left override", "/docs/\u202eexe.txt"},
	{"line separator", "/docs/a\u2028b"},
	{"percent-encoded no-break space before scheme", "%C2%A0javascript:alert(1)"},
	{"stray percent", "/docs/100%"},
	{"stray percent before scheme", "%javascript:alert(1)"},
	{"invalid UTF-8", "/docs/\xff"},
	{"quote breaks an attribute", "https://docs.example/\"onmouseover=\"alert(1)"},
	{"apostrophe breaks an attribute", "/docs/'onmouseover='alert(1)"},
	{"backtick", "/docs/`x`"},
	{"angle brackets", "/docs/<script>alert(1)</script>"},
	{"empty scheme", ":foo.com/"},
	{"lone colon", ":"},
	{"scheme starting with a digit", "1http://docs.example/"},
}

// allowed are the ordinary shapes of a docs page's URL.
var allowed = []string{
	"",
	"https://docs.example/system/a",
	"http://docs.example/system/a",
	"HTTPS://DOCS.EXAMPLE/A",
	"https://docs.example",
	"https://docs.example:8443/a?b=c&d=e#f",
	"https://docs.example/a?next=javascript:alert(1)",
	"https://docs.example/a%20b",
	"https://docs.example/a%2Fb",
	"https://docs.example/caf%C3%A9",
	"https://docs.example/文档/页",
	"http://127.0.0.1:3000/x",
	"http://[::1]:3000/x",
	"/system/components/kunora-kgent/memory",
	"/v1.0/system/a/",
	"/:23",
	"/a:b",
	"system/a",
	"./a",
	"../a",
	"?q=1",
	"#anchor",
	"/docs/a%20b",
	"/docs/a&b",
	"/docs/a?x=1&y=2",
	"/docs/Tom&Jerry",
}

func TestAllowedRefusesWhatIsNotAnHTTPPage(t *testing.T) {
	for _, tc := range refused {
		if Allowed(tc.url) {
			t.Errorf("%s: Allowed(%q) = true, want false", tc.name, tc.url)
		}
	}
}

func TestAllowedKeepsDocsURLs(t *testing.T) {
	for _, u := range allowed {
		if !Allowed(u) {
			t.Errorf("Allowed(%q) = false, want true", u)
		}
	}
}

// Every scheme but http and https is refused, whatever its case.
func TestAllowedRefusesEveryOtherScheme(t *testing.T) {
	for _, scheme := range []string{"javascript", "data", "vbscript", "file", "jar", "ms-its", "mhtml", "res", "wss", "ws", "intent", "chrome", "x-java"} {
		for _, s := range []string{scheme, strings.ToUpper(scheme)} {
			for _, rest := range []string{"alert(1)", "//docs.example/", ""} {
				if Allowed(s + ":" + rest) {
					t.Errorf("Allowed(%q) = true", s+":"+rest)
				}
			}
		}
	}
}

// Every character the WHATWG parser skips, and every one a lenient reader
// trims, put anywhere inside "javascript:" or in front of it, is refused.
func TestAllowedRefusesIgnoredCharactersInTheScheme(t *testing.T) {
	var skipped []rune
	for r := rune(0); r <= 0x20; r++ {
		skipped = append(skipped, r)
	}
	skipped = append(skipped, 0x7f, 0x85, 0xa0, 0x1680, 0x2000, 0x200b, 0x200c, 0x200d, 0x2028, 0x2029, 0x202e, 0x3000, 0xfeff)
	const js = "javascript:alert(1)"
	for _, r := range skipped {
		for i := 0; i <= len("javascript:"); i++ {
			s := js[:i] + string(r) + js[i:]
			if Allowed(s) {
				t.Errorf("Allowed(%q) = true", s)
			}
		}
	}
}

// FuzzAllowed checks what an allowed URL means to a second parser (Go's
// net/url, RFC 3986): it parses, its scheme is none, http or https, it
// names a host when and only when it has a scheme, and resolved against a
// docs page it stays an http(s) URL, on the docs host when relative.
func FuzzAllowed(f *testing.F) {
	for _, tc := range refused {
		f.Add(tc.url)
	}
	for _, u := range allowed {
		f.Add(u)
	}
	base, _ := url.Parse("https://docs.example/dir/page")
	f.Fuzz(func(t *testing.T, s string) {
		if !Allowed(s) || s == "" {
			return
		}
		u, err := url.Parse(s)
		if err != nil {
			t.Fatalf("Allowed(%q) but net/url refuses it: %v", s, err)
		}
		scheme := strings.ToLower(u.Scheme)
		if scheme != "" && scheme != "http" && scheme != "https" {
			t.Fatalf("Allowed(%q) with scheme %q", s, u.Scheme)
		}
		if (scheme == "") != (u.Host == "") || u.User != nil {
			t.Fatalf("Allowed(%q): scheme %q, host %q, user %v", s, u.Scheme, u.Host, u.User)
		}
		r := base.ResolveReference(u)
		if r.Scheme != "http" && r.Scheme != "https" {
			t.Fatalf("Allowed(%q) resolves to %q", s, r)
		}
		if scheme == "" && r.Host != base.Host {
			t.Fatalf("relative %q leaves the docs host: %q", s, r)
		}
		if strings.ContainsAny(s, "\\\t\n\r\x00 \"'<>`") {
			t.Fatalf("Allowed(%q) keeps a character no URL needs raw", s)
		}
	})
}
