//go:build !nodevbackends

package wikigate

// The development RAGFlow and Meilisearch (devbackends/) are in the default
// build, so `go build ./cmd/wikigate && ./wikigate run --config Caddyfile`
// runs on its own (README, Quick start). A production build leaves them out
// with -tags nodevbackends (deploy/Dockerfile); its Caddyfile directives
// then refuse the configuration (cmd/wikigatecmd/devbackends_absent.go).
import _ "github.com/wikigate/wikigate/devbackends/devcaddy"
