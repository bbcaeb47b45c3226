package devmeili

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// The tenant-token vector meili/token_test.go checks the gate's tokens against
// (docs/backends.md, Meilisearch wire details: Tenant tokens): same key,
// payload and expected token.
const (
	vectorUID     = "00000000-0000-0000-0000-000000000000"
	vectorKey     = "aeb94973e0b6e912d94165430bbe87dee91a7c4f891ce19050c3910ec96977e9"
	vectorPayload = `{"searchRules":{"dog":{"filter":"color = blue"}},"apiKeyUid":"00000000-0000-0000-0000-000000000000","exp":4102444800}`
	vectorToken   = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzZWFyY2hSdWxlcyI6eyJkb2ciOnsiZmlsdGVyIjoiY29sb3IgPSBibHVlIn19LCJhcGlLZXlVaWQiOiIwMDAwMDAwMC0wMDAwLTAwMDAtMDAwMC0wMDAwMDAwMDAwMDAiLCJleHAiOjQxMDI0NDQ4MDB9.0glP3ofpYXCBCGUNQI583PETS0VyuKOrAisZC07SHDs"
)

func TestTenantTokenDerivedVector(t *testing.T) {
	if deriveKey("MASTER_KEY", vectorUID) != vectorKey {
		t.Fatal("vector key is not HMAC(MASTER_KEY, uid)")
	}
	if got := signToken(t, "HS256", vectorKey, vectorPayload); got != vectorToken {
		t.Fatalf("minted %s\nwant   %s", got, vectorToken)
	}
	claims, err := verifyTenantToken(vectorToken, vectorUID, vectorKey, fixedNow)
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	if f, ok := claims.rules.forIndex("dog"); !ok || f != "color = blue" {
		t.Errorf("rule for dog: %v %v", f, ok)
	}
	if _, ok := claims.rules.forIndex("doggo"); ok {
		t.Error("the rule for dog must not cover doggo")
	}
	if claims.exp == nil || *claims.exp != 4102444800 {
		t.Errorf("exp %v", claims.exp)
	}
}

func TestTenantTokenFilterIsANDedWithTheRequestFilter(t *testing.T) {
	s := newTestServer(t)
	token := tenantToken(t, s, `{"wiki_pages":{"filter":"project = kunora-kgent AND status = approved"}}`)
	_, resp := search(t, s, token, `{"q":"memory","attributesToRetrieve":["project","status","version"],"filter":"version = v1.0"}`)
	hits := hitsOf(t, resp)
	if len(hits) == 0 {
		t.Fatal("no hits")
	}
	for _, h := range hits {
		if h["project"] != "kunora-kgent" || h["status"] != "approved" || h["version"] != "v1.0" {
			t.Errorf("hit outside token rule AND request filter: %v", h)
		}
	}
	// The request filter cannot widen the scope: an OR inside it stays ANDed.
	_, resp = search(t, s, token, `{"q":"memory","attributesToRetrieve":["project"],"filter":"project = kunora-ops OR project = kunora-gateway"}`)
	if n := len(hitsOf(t, resp)); n != 0 {
		t.Errorf("request filter widened the token scope: %d hits", n)
	}
	last := s.Requests()[len(s.Requests())-1]
	if last.Auth != "tenant_token" || last.TenantFilter != `"project = kunora-kgent AND status = approved"` ||
		last.Filter != `"project = kunora-ops OR project = kunora-gateway"` {
		t.Errorf("logged %+v", last)
	}
}

func TestTenantTokenRuleSelection(t *testing.T) {
	s := newTestServer(t)
	cases := []struct{ rules, wantProject string }{
		{`{"*":{"filter":"project = kunora-ops"},"wiki_pages":{"filter":"project = kunora-gateway"}}`, "kunora-gateway"},
		{`{"*":{"filter":"project = kunora-ops"},"wiki_*":{"filter":["project = kunora-kgent"]}}`, "kunora-kgent"},
		{`{"wiki_*":null}`, ""},
		{`{"wiki_pages":{}}`, ""},
		{`["wiki_pages"]`, ""},
	}
	for _, c := range cases {
		code, resp := search(t, s, tenantToken(t, s, c.rules), `{"limit":100,"attributesToRetrieve":["project"]}`)
		if code != 200 {
			t.Fatalf("%s: %d %v", c.rules, code, resp)
		}
		projects := map[any]bool{}
		for _, h := range hitsOf(t, resp) {
			projects[h["project"]] = true
		}
		if c.wantProject == "" && len(projects) != 3 || c.wantProject != "" && !reflect.DeepEqual(projects, map[any]bool{c.wantProject: true}) {
			t.Errorf("%s: projects %v, want %q (empty: all three)", c.rules, projects, c.wantProject)
		}
	}
}

func TestTenantTokenAlgorithms(t *testing.T) {
	s := newTestServer(t)
	uid, key := s.SearchKey()
	payload := `{"searchRules":["*"],"apiKeyUid":"` + uid + `"}`
	for _, alg := range []string{"HS256", "HS384", "HS512"} {
		if code, resp := search(t, s, signToken(t, alg, key, payload), `{}`); code != 200 {
			t.Errorf("%s: %d %v", alg, code, resp)
		}
	}
	for _, alg := range []string{"RS256", "none"} {
		_, resp := search(t, s, signToken(t, alg, key, payload), `{}`)
		if resp["message"] != "Could not decode tenant token, InvalidAlgorithm." {
			t.Errorf("%s: %v", alg, resp)
		}
	}
}

func TestTenantTokenFailuresMatchTheEngine(t *testing.T) {
	s := newTestServer(t)
	uid, key := s.SearchKey()
	valid := tenantToken(t, s, `["*"]`)
	parts := strings.Split(valid, ".")
	tampered := parts[0] + "." + strings.Split(tenantToken(t, s, `["other"]`), ".")[1] + "." + parts[2]
	cases := []struct{ name, token, index, want string }{
		{"wrong secret", signToken(t, "HS256", "not-the-key", `{"searchRules":["*"],"apiKeyUid":"`+uid+`"}`), "wiki_pages", fixtureMessage(t, "error.tenant_token.invalid_signature.json")},
		{"tampered payload", tampered, "wiki_pages", fixtureMessage(t, "error.tenant_token.invalid_signature.json")},
		{"missing searchRules", signToken(t, "HS256", key, `{"exp":12345678}`), "wiki_pages", fixtureMessage(t, "error.tenant_token.missing_search_rules.json")},
		{"bad searchRules", signToken(t, "HS256", key, `{"searchRules":"doggos","apiKeyUid":"`+uid+`"}`), "wiki_pages", fixtureMessage(t, "error.tenant_token.bad_search_rules.json")},
		{"index not in rules", tenantToken(t, s, `["catto","doggo"]`), "dog", fixtureMessage(t, "error.tenant_token.index_not_allowed.json")},
		{"other parent key", signToken(t, "HS256", key, `{"searchRules":["*"],"apiKeyUid":"`+vectorUID+`"}`), "wiki_pages", "The provided API key is invalid."},
		{"audience", tenantToken(t, s, `["*"]`, `"aud":"wikigate"`), "wiki_pages", "Could not decode tenant token, InvalidAudience."},
		{"expired", tenantToken(t, s, `["*"]`, `"exp":1700000000`), "wiki_pages", "Tenant token expired. Was valid up to `1700000000` and we're now `" + itoa(int(fixedNow.Unix())) + "`."},
	}
	for _, c := range cases {
		code, got := callJSON(t, s, "POST", "/indexes/"+c.index+"/search", c.token, `{}`)
		if code != 403 || got["code"] != "invalid_api_key" || got["type"] != "auth" || got["message"] != c.want {
			t.Errorf("%s: %d %v\n want message %q", c.name, code, got, c.want)
		}
	}
	if code, _ := search(t, s, tenantToken(t, s, `["*"]`, `"exp":`+itoa(int(fixedNow.Add(time.Hour).Unix()))), `{}`); code != 200 {
		t.Errorf("unexpired token: %d", code)
	}
}

func TestTenantTokenIsRefusedOutsideSearch(t *testing.T) {
	s := newTestServer(t)
	code, got := callJSON(t, s, "GET", "/indexes/wiki_pages/documents", tenantToken(t, s, `["*"]`), "")
	if code != 403 || !reflect.DeepEqual(got, fixture(t, "error.invalid_api_key.json")) {
		t.Errorf("tenant token on documents: %d %v", code, got)
	}
}

func TestTenantTokenRuleWithBadFilterFailsAtSearchTime(t *testing.T) {
	s := newTestServer(t)
	code, got := search(t, s, tenantToken(t, s, `{"*":{"filter":"content = x"}}`), `{}`)
	if code != 400 || got["code"] != "invalid_search_filter" || !strings.Contains(got["message"].(string), "Attribute `content` is not filterable") {
		t.Errorf("got %d %v", code, got)
	}
}
