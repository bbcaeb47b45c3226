package identity

import (
	"testing"
	"time"
)

func TestMintHS256RoundTrip(t *testing.T) {
	cfg := answerConfig(t, SiteModeAuthenticatedRead)
	cfg.Humans.RolesClaim = "groups"
	cfg.Humans.HMACSecrets = map[string][]byte{"sso-1": ssoSecret}
	a := newAuthenticator(t, cfg)

	agentToken, err := MintHS256(MintOptions{Secret: secretB, KeyID: "k2", Issuer: agentIssuer, Audience: []string{audience},
		Subject: "agent-release-bot", TTL: time.Hour, Now: fixedNow})
	if err != nil {
		t.Fatalf("MintHS256: %v", err)
	}
	p, err := a.AuthenticateAgent(requestWith(bearer(agentToken)))
	checkResult(t, p, err, Principal{Type: TypeAgent, ID: "agent-release-bot", Credential: CredentialJWT}, "", "")

	humanToken, err := MintHS256(MintOptions{Secret: ssoSecret, KeyID: "sso-1", Issuer: humanIssuer, Audience: []string{"docs-site"},
		Subject: "bob", TTL: time.Hour, Roles: []string{"editor"}, RolesClaim: "groups", Now: fixedNow})
	if err != nil {
		t.Fatalf("MintHS256: %v", err)
	}
	p, err = a.AuthenticateAnswer(requestWith(bearer(humanToken)))
	checkResult(t, p, err, Principal{Type: TypeHuman, ID: "bob", Roles: []string{"editor"}, Credential: CredentialSSO}, "", "")

	expiredAt := func() time.Time { return t0.Add(-2 * time.Hour) }
	old, err := MintHS256(MintOptions{Secret: secretB, KeyID: "k2", Issuer: agentIssuer, Audience: []string{audience},
		Subject: "agent-release-bot", TTL: time.Hour, Now: expiredAt})
	if err != nil {
		t.Fatal(err)
	}
	p, err = a.AuthenticateAgent(requestWith(bearer(old)))
	checkResult(t, p, err, Principal{}, msgTokenExpired, old)
}

func TestMintHS256RejectsIncompleteOptions(t *testing.T) {
	ok := MintOptions{Secret: secretA, Issuer: agentIssuer, Audience: []string{audience}, Subject: "a", TTL: time.Minute}
	tests := map[string]func(o *MintOptions){
		"short secret": func(o *MintOptions) { o.Secret = []byte("short") },
		"no issuer":    func(o *MintOptions) { o.Issuer = "" },
		"no audience":  func(o *MintOptions) { o.Audience = nil },
		"no subject":   func(o *MintOptions) { o.Subject = "" },
		"no ttl":       func(o *MintOptions) { o.TTL = 0 },
	}
	if _, err := MintHS256(ok); err != nil {
		t.Fatalf("baseline options rejected: %v", err)
	}
	for name, change := range tests {
		t.Run(name, func(t *testing.T) {
			o := ok
			change(&o)
			if _, err := MintHS256(o); err == nil {
				t.Fatal("MintHS256 accepted incomplete options")
			}
		})
	}
}
