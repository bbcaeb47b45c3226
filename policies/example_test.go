package policies_test

import (
	"context"
	"fmt"

	"github.com/wikigate/wikigate/policies"
	"github.com/wikigate/wikigate/protocol"
)

func ExampleEngine_Decide() {
	ctx := context.Background()
	engine, err := policies.New(ctx, policies.Options{Dir: "../rego"})
	if err != nil {
		fmt.Println(err)
		return
	}
	call := policies.Input{
		Endpoint: "/agent/tools/search",
		Tool:     "search",
		Action:   "read",
		SiteMode: "public-read",
		Caller:   policies.Caller{Type: "agent", ID: "kunora-coding-agent", Credential: "jwt"},
	}

	// No scope: the agent's whole grant.
	d, err := engine.Decide(ctx, call)
	if err != nil {
		fmt.Println("deny:", err) // any error is a deny
		return
	}
	fmt.Println(d.Allow, d.Scope.Projects, d.Scope.Paths, d.Scope.Version, d.Datasets[0].ID)

	// A sibling directory sharing the granted prefix is not granted.
	call.Scope = &protocol.Scope{Paths: []string{"publish/system/components/kunora-kgent-extras"}}
	d, _ = engine.Decide(ctx, call)
	fmt.Println(d.Allow, d.Code, d.Reason)
	// Output:
	// true [kunora-kgent] [publish/system/components/kunora-kgent] main d092f80af64f8e5e119cee1082c471b4
	// false forbidden_scope path "publish/system/components/kunora-kgent-extras" is not in your grant
}
