package meiliroutes

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/wikigate/wikigate/gateway"
	"github.com/wikigate/wikigate/identity"
	"github.com/wikigate/wikigate/meili"
	"github.com/wikigate/wikigate/policies"
	"github.com/wikigate/wikigate/protocol"
)

// The values a facet search offers: those starting with the typed prefix
// (case-folded), counted, and allowed by the scope, alphabetically. A
// reader who may see working docs is offered "working"; one who may not is
// not, even when the backend counted it.
func TestFacetHitsInScope(t *testing.T) {
	dist := map[string]int{"working": 2, "approved": 5, "Archived": 1, "empty": 0}
	public := protocol.Scope{Projects: []string{"kunora-kgent"}, Version: "main"}
	offered := func(name string, dist map[string]int, prefix string, eff protocol.Scope) []meiliFacetHit {
		scoped := scopedFacets([]string{name}, map[string]map[string]int{name: dist}, eff, facetBounds{total: 100})
		return facetHits(scoped[name], prefix)
	}
	if got := offered("status", dist, "", public); !reflect.DeepEqual(got, []meiliFacetHit{{"approved", 5}}) {
		t.Fatalf("public reader: %v", got)
	}
	if got := offered("status", dist, "W", public); len(got) != 0 {
		t.Fatalf("public reader typing W: %v", got)
	}
	maintainer := public
	maintainer.IncludeWorkingDocs = true
	if got := offered("status", dist, " ", maintainer); !reflect.DeepEqual(got, []meiliFacetHit{{"approved", 5}, {"working", 2}}) {
		t.Fatalf("reader with working docs: %v", got)
	}
	if got := offered("version", map[string]int{"main": 3, "v1.0": 2}, "", public); !reflect.DeepEqual(got, []meiliFacetHit{{"main", 3}}) {
		t.Fatalf("versions: %v", got)
	}
	got := offered("project", map[string]int{"kunora-kgent": 3, "kunora-secret": 2}, "kunora", public)
	if !reflect.DeepEqual(got, []meiliFacetHit{{"kunora-kgent", 3}}) {
		t.Fatalf("projects: %v", got)
	}
	_, pathOK := facetScopeValue("path", "publish", public)
	_, emptyOK := facetScopeValue("version", "", protocol.Scope{})
	if pathOK || emptyOK {
		t.Fatal("a facet the routes do not offer, or an empty version, is allowed")
	}
}

// A lying backend's facet distribution, when the gate does not hold every
// match: only the asked facets, only the values the decided scope admits,
// in the scope's spelling (a case variant merged into it, no backend text),
// each count capped at the total the answer shows, and no overflow
// whatever the backend's numbers.
func TestScopedFacetsOfALyingBackend(t *testing.T) {
	eff := protocol.Scope{Projects: []string{"kunora-kgent", "kunora-gateway"}, Version: "main"}
	dist := map[string]map[string]int{
		"status":       {"approved": 40, "working": 6, "<b>approved</b>": 3, "APPROVED": 2},
		"project":      {"kunora-kgent": 30, "KUNORA-KGENT": 4, "kunora-gateway": 0, "kunora-secret": 9, "kunora-ops": -5},
		"version":      {"main": math.MaxInt, "Main": math.MaxInt, "v1.0": 7},
		"pathPrefixes": {"publish/secret": 5},
	}
	got := scopedFacets([]string{"status", "project", "version"}, dist, eff, facetBounds{total: 37})
	want := map[string]map[string]int{
		"status":  {"approved": 37},
		"project": {"kunora-kgent": 34},
		"version": {"main": 37},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
	// An asked facet the backend left out is there, empty (as Meilisearch
	// answers a facet without values); a total of 0 shows no value.
	if got := scopedFacets([]string{"project"}, nil, eff, facetBounds{total: 5}); !reflect.DeepEqual(got, map[string]map[string]int{"project": {}}) {
		t.Fatalf("no distribution: %v", got)
	}
	if got := scopedFacets([]string{"status"}, dist, eff, facetBounds{total: 0}); len(got["status"]) != 0 {
		t.Fatalf("total 0: %v", got)
	}
}

// When the gate counts the hits (every match in hand, or a backend that
// ignored the filter), the counts are the in-scope hits' own: the
// backend's numbers are not used at all.
func TestScopedFacetsCountedFromTheHits(t *testing.T) {
	eff := protocol.Scope{Projects: []string{"kunora-kgent", "kunora-gateway"}, Version: "main", IncludeWorkingDocs: true}
	kept := []meili.Hit{
		{Project: "kunora-kgent", Version: "main", Status: "approved"},
		{Project: "kunora-kgent", Version: "main", Status: "working"},
		{Project: "kunora-gateway", Version: "main", Status: "approved"},
	}
	dist := map[string]map[string]int{"project": {"kunora-kgent": 30, "kunora-gateway": 12}, "status": {"approved": 40}}
	got := scopedFacets([]string{"project", "status", "version"}, dist, eff, facetBounds{kept: kept, countHits: true, total: 3})
	want := map[string]map[string]int{
		"project": {"kunora-kgent": 2, "kunora-gateway": 1},
		"status":  {"approved": 2, "working": 1},
		"version": {"main": 3},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
}

func TestCompleteAnswer(t *testing.T) {
	one, two, five := 1, 2, 5
	cases := []struct {
		p    meili.SearchParams
		hits int
		want bool
	}{
		{meili.SearchParams{}, 19, true}, // Meilisearch's default limit is 20
		{meili.SearchParams{}, 20, false},
		{meili.SearchParams{Limit: 5}, 4, true},
		{meili.SearchParams{Limit: 5}, 5, false},
		{meili.SearchParams{Limit: 5, Offset: 5}, 0, false}, // earlier pages unseen
		{meili.SearchParams{Limit: 1}, 0, true},             // a count-only query that matched nothing
		{meili.SearchParams{HitsPerPage: &five}, 4, true},
		{meili.SearchParams{HitsPerPage: &five, Page: &one}, 5, false},
		{meili.SearchParams{HitsPerPage: &five, Page: &two}, 0, false},
		{meili.SearchParams{Page: &one}, 19, true},
	}
	for _, c := range cases {
		if got := completeAnswer(c.p, c.hits); got != c.want {
			t.Errorf("%+v with %d hits: %v", c.p, c.hits, got)
		}
		if got := countHits(c.p, c.hits, 0); got != c.want {
			t.Errorf("countHits %+v with %d hits: %v", c.p, c.hits, got)
		}
		if !countHits(c.p, c.hits, 1) {
			t.Errorf("countHits %+v with a hit dropped: false", c.p)
		}
	}
}

// lyingSearch is a backend that lies: it answers hits (as many as asked,
// 20 by default) and a facet distribution with values outside the scope.
type lyingSearch struct {
	hits  []meili.Hit
	total int
	calls int
}

func (s *lyingSearch) Search(_ context.Context, p meili.SearchParams) (*meili.SearchResponse, error) {
	s.calls++
	n := p.Limit
	if n == 0 {
		n = 20
	}
	return &meili.SearchResponse{
		Hits: s.hits[:min(n, len(s.hits))], Limit: n, EstimatedTotalHits: s.total,
		FacetDistribution: map[string]map[string]int{
			"status":       {"approved": 40, "working": 6},
			"project":      {"kunora-kgent": 30, "kunora-secret": 9},
			"version":      {"main": 40, "v1.0": 7},
			"pathPrefixes": {"publish/secret": 5},
		},
	}, nil
}

func (s *lyingSearch) Health(context.Context) error { return nil }

// anonymousAuth is a public reader on the answer routes; it takes no
// agent credential.
type anonymousAuth struct{}

func (anonymousAuth) AuthenticateAnswer(*http.Request) (identity.Principal, error) {
	return identity.Principal{Type: identity.TypeHuman, Credential: identity.CredentialAnonymous, Anonymous: true}, nil
}

func (anonymousAuth) AuthenticateAgent(*http.Request) (identity.Principal, error) {
	return identity.Principal{}, errors.New("not used")
}

func (anonymousAuth) CredentialInfo(*http.Request, identity.Principal) identity.CredentialInfo {
	return identity.CredentialInfo{}
}

func (anonymousAuth) CheckAPIKey(string) error { return errors.New("not used") }

// countingSearch counts the calls that reached the backend.
type countingSearch struct{ calls int }

func (s *countingSearch) Search(context.Context, meili.SearchParams) (*meili.SearchResponse, error) {
	s.calls++
	return &meili.SearchResponse{}, nil
}

func (s *countingSearch) Health(context.Context) error { return nil }

// scopePolicy allows every call inside one scope.
type scopePolicy struct{ eff protocol.Scope }

func (p scopePolicy) Decide(context.Context, policies.Input) (policies.Decision, error) {
	return policies.Decision{Allow: true, Scope: p.eff, Index: "wiki_pages", Revision: "r"}, nil
}
func (p scopePolicy) DecideTool(context.Context, policies.Input) (policies.Decision, error) {
	return policies.Decision{Allow: true, Revision: "r"}, nil
}
func (scopePolicy) Revision() string { return "r" }

// meiliPoster posts to the Meilisearch-compatible routes of a gate whose
// backend is search, for an anonymous reader inside eff.
func meiliPoster(t *testing.T, search gateway.Searcher, eff protocol.Scope) func(path, body string) (int, string) {
	g, err := gateway.New(gateway.Config{}, gateway.Deps{Auth: anonymousAuth{}, Policy: scopePolicy{eff: eff}, Search: search,
		Routes: []gateway.RouteSet{Set()}})
	if err != nil {
		t.Fatal(err)
	}
	return func(path, body string) (int, string) {
		w := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodPost, "/answer/meilisearch/"+path, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		g.ServeHTTP(w, r)
		return w.Code, strings.TrimSpace(w.Body.String())
	}
}

// Search and multi-search through lying backends show an anonymous reader
// no hidden facet value and no count above the answer's total; facetStats
// is empty. A backend that answers hidden pages (it ignored the filter)
// has its counts replaced by those of the in-scope hits; one that answers
// in-scope pages only but lies about counts is capped at the total.
func TestMeiliSearchFacetsOfALyingBackend(t *testing.T) {
	eff := protocol.Scope{Projects: []string{"kunora-kgent"}, Paths: []string{"publish/k"}, Version: "main"}
	hit := func(path, version, status string) meili.Hit {
		return meili.Hit{ID: "x", Path: path, Project: "kunora-kgent", Version: version, Status: status}
	}
	ignoresFilter := &lyingSearch{total: 60, hits: []meili.Hit{
		hit("publish/k/a.md", "main", "approved"), hit("publish/k/b.md", "main", "working"),
		hit("publish/k/c.md", "v1.0", "approved"), hit("publish/secret/d.md", "main", "approved"),
	}}
	liesAboutCounts := &lyingSearch{total: 35, hits: []meili.Hit{
		hit("publish/k/a.md", "main", "approved"), hit("publish/k/b.md", "main", "approved"),
		hit("publish/k/c.md", "main", "approved"), hit("publish/k/d.md", "main", "approved"),
	}}
	const facets = `"facets":["status","project","version"]`
	cases := []struct {
		search     gateway.Searcher
		body, want string
	}{
		// a full page (4 of 4 asked) with 3 hidden hits: the kept hit's counts; the total 60-3
		{ignoresFilter, `{"q":"m","limit":4,` + facets + `}`,
			`"estimatedTotalHits":57,"facetDistribution":{"project":{"kunora-kgent":1},"status":{"approved":1},"version":{"main":1}},"facetStats":{}}`},
		// every match in hand (4 of 20 asked): the kept hit's counts, and the total
		{ignoresFilter, `{"q":"m",` + facets + `}`,
			`"estimatedTotalHits":1,"facetDistribution":{"project":{"kunora-kgent":1},"status":{"approved":1},"version":{"main":1}},"facetStats":{}}`},
		// in-scope hits only, a full page: the admitted counts, capped at 35
		{liesAboutCounts, `{"q":"m","limit":4,` + facets + `}`,
			`"estimatedTotalHits":35,"facetDistribution":{"project":{"kunora-kgent":30},"status":{"approved":35},"version":{"main":35}},"facetStats":{}}`},
		// a count-only query (one hit asked, one in scope): the same
		{liesAboutCounts, `{"q":"m","limit":0,"facets":["status"]}`,
			`"estimatedTotalHits":35,"facetDistribution":{"status":{"approved":35}},"facetStats":{}}`},
	}
	for _, c := range cases {
		post := meiliPoster(t, c.search, eff)
		code, got := post("indexes/wiki_pages/search", c.body)
		if code != 200 || !strings.HasSuffix(got, c.want) {
			t.Errorf("%s: %d %s\nwant …%s", c.body, code, got, c.want)
		}
		code, got = post("multi-search", `{"queries":[{"indexUid":"wiki_pages",`+c.body[1:]+`]}`)
		if code != 200 || !strings.HasSuffix(got, c.want+"]}") {
			t.Errorf("multi-search %s: %d %s\nwant …%s", c.body, code, got, c.want)
		}
	}
}

// A facet outside the served list is Meilisearch's invalid_search_facets
// (inside a multi-search too, naming the query) and reaches no backend.
func TestMeiliFacetOutsideTheServedListIsRefused(t *testing.T) {
	search := &countingSearch{}
	post := meiliPoster(t, search, protocol.Scope{Projects: []string{"p"}, Paths: []string{"publish/p"}, Version: "main"})
	for path, body := range map[string]string{
		"indexes/wiki_pages/search": `{"facets":["status","path"]}`,
		"multi-search":              `{"queries":[{"indexUid":"wiki_pages"},{"indexUid":"wiki_pages","facets":["pathPrefixes"]}]}`,
	} {
		code, got := post(path, body)
		var e meiliErrorBody
		_ = json.Unmarshal([]byte(got), &e)
		if code != 400 || e.Code != "invalid_search_facets" || !strings.Contains(e.Message, "is not filterable. The available filterable attributes are `project, version, status`.") {
			t.Errorf("%s %s: %d %s", path, body, code, got)
		}
		if path == "multi-search" && !strings.HasPrefix(e.Message, "Inside `.queries[1]`: Invalid facet distribution, attribute `pathPrefixes`") {
			t.Errorf("multi-search refusal: %s", e.Message)
		}
	}
	if search.calls != 0 {
		t.Fatal("a refused facet reached the backend")
	}
}
