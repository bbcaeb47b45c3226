package gateway

import (
	"errors"
	"net/http"

	"github.com/wikigate/wikigate/identity"
)

// noCredentialChecks completes a test authenticator whose callers never
// open an MCP session: no expiry, no audience, every key prefix refused.
type noCredentialChecks struct{}

func (noCredentialChecks) CredentialInfo(*http.Request, identity.Principal) identity.CredentialInfo {
	return identity.CredentialInfo{}
}

func (noCredentialChecks) CheckAPIKey(string) error { return errors.New("not used") }
