package caddymodule

import (
	"strconv"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

func init() {
	httpcaddyfile.RegisterHandlerDirective("wikigate", parseCaddyfile)
	// The gate answers its routes itself, so it sits where a proxy would:
	// before reverse_proxy, after the header/auth/rewrite family.
	httpcaddyfile.RegisterDirectiveOrder("wikigate", httpcaddyfile.Before, "reverse_proxy")
}

func parseCaddyfile(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	m := new(Handler)
	err := m.UnmarshalCaddyfile(h.Dispenser)
	return m, err
}

// UnmarshalCaddyfile sets up the handler from Caddyfile tokens. Syntax:
//
//	wikigate {
//		site_mode        public-read|authenticated-read
//		policy_dir       <dir>
//		watch_policy     on|off
//		max_body_size    <bytes>
//		decision_timeout <duration>
//		backend_timeout  <duration>
//		log_questions
//		api_keys_file    <path>
//		agent_jwt {
//			issuer      <iss>
//			audience    <aud...>
//			algorithms  <alg...>
//			hmac_secret [<kid>] <secret>
//			public_key  <kid> <pem file>
//			jwks_url    <url>
//			leeway      <duration>
//		}
//		human_jwt { ...same as agent_jwt... ; roles_claim <claim> }
//		meilisearch {
//			url        <url>
//			api_key    <key>
//			index      <uid>
//			timeout    <duration>
//			tenant_key <search key> <search key uid>
//		}
//		ragflow {
//			url                  <url>
//			api_key              <key>
//			timeout              <duration>
//			stream               on|off
//			page_size            <n>
//			similarity_threshold <0..1>
//			high_score           <0..1>
//			medium_score         <0..1>
//			empty_response       <text>
//		}
//		sessions {
//			ttl                <duration>
//			max_turns          <n>
//			max_context_tokens <n>
//			max_memory         <bytes>[KiB|MiB]
//		}
//		feedback {
//			path <bbolt file>
//			github {
//				repo    <owner/name>
//				token   <token>
//				api_url <url>
//				labels  <label...>
//			}
//		}
//	}
func (h *Handler) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // directive name
	if d.NextArg() {
		return d.ArgErr()
	}
	seen := map[string]bool{}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		opt := d.Val()
		if seen[opt] {
			return d.Errf("duplicate option %q", opt)
		}
		seen[opt] = true
		if err := h.unmarshalOption(d, opt); err != nil {
			return err
		}
	}
	return nil
}

func (h *Handler) unmarshalOption(d *caddyfile.Dispenser, opt string) error {
	switch opt {
	case "site_mode":
		return oneArg(d, &h.SiteMode)
	case "policy_dir":
		return oneArg(d, &h.PolicyDir)
	case "watch_policy":
		return onOff(d, &h.WatchPolicy)
	case "max_body_size":
		return sizeArg(d, &h.MaxBodyBytes)
	case "decision_timeout":
		return durationArg(d, &h.DecisionTimeout)
	case "backend_timeout":
		return durationArg(d, &h.BackendTimeout)
	case "log_questions":
		h.LogQuestions = true
		return noArgs(d)
	case "api_keys_file":
		return oneArg(d, &h.APIKeysFile)
	case "agent_jwt":
		h.AgentJWT = new(JWTConfig)
		return h.AgentJWT.unmarshal(d, false)
	case "human_jwt":
		h.HumanJWT = new(JWTConfig)
		return h.HumanJWT.unmarshal(d, true)
	case "meilisearch":
		h.Meilisearch = new(MeiliConfig)
		return h.Meilisearch.unmarshal(d)
	case "ragflow":
		h.RAGFlow = new(RAGFlowConfig)
		return h.RAGFlow.unmarshal(d)
	case "sessions":
		h.Sessions = new(SessionsConfig)
		return h.Sessions.unmarshal(d)
	case "feedback":
		h.Feedback = new(FeedbackConfig)
		return h.Feedback.unmarshal(d)
	default:
		return d.Errf("unrecognized wikigate option %q", opt)
	}
}

func (j *JWTConfig) unmarshal(d *caddyfile.Dispenser, human bool) error {
	if d.NextArg() {
		return d.ArgErr()
	}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		var err error
		switch d.Val() {
		case "issuer":
			err = oneArg(d, &j.Issuer)
		case "audience":
			err = manyArgs(d, &j.Audience)
		case "algorithms":
			err = manyArgs(d, &j.Algorithms)
		case "hmac_secret":
			err = j.unmarshalHMAC(d)
		case "public_key":
			err = j.unmarshalPublicKey(d)
		case "jwks_url":
			err = oneArg(d, &j.JWKSURL)
		case "leeway":
			err = durationArg(d, &j.Leeway)
		case "roles_claim":
			if !human {
				return d.Err("roles_claim applies to human_jwt only")
			}
			err = oneArg(d, &j.RolesClaim)
		default:
			return d.Errf("unrecognized token option %q", d.Val())
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (j *JWTConfig) unmarshalHMAC(d *caddyfile.Dispenser) error {
	args := d.RemainingArgs()
	kid, secret := "", ""
	switch len(args) {
	case 1:
		secret = args[0]
	case 2:
		kid, secret = args[0], args[1]
	default:
		return d.ArgErr()
	}
	if j.HMACSecrets == nil {
		j.HMACSecrets = map[string]string{}
	}
	if _, dup := j.HMACSecrets[kid]; dup {
		return d.Errf("duplicate hmac_secret for kid %q", kid)
	}
	j.HMACSecrets[kid] = secret
	return nil
}

func (j *JWTConfig) unmarshalPublicKey(d *caddyfile.Dispenser) error {
	args := d.RemainingArgs()
	if len(args) != 2 {
		return d.ArgErr()
	}
	if j.PublicKeyFiles == nil {
		j.PublicKeyFiles = map[string]string{}
	}
	if _, dup := j.PublicKeyFiles[args[0]]; dup {
		return d.Errf("duplicate public_key for kid %q", args[0])
	}
	j.PublicKeyFiles[args[0]] = args[1]
	return nil
}

func (m *MeiliConfig) unmarshal(d *caddyfile.Dispenser) error {
	if d.NextArg() {
		return d.ArgErr()
	}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		var err error
		switch d.Val() {
		case "url":
			err = oneArg(d, &m.URL)
		case "api_key":
			err = oneArg(d, &m.APIKey)
		case "index":
			err = oneArg(d, &m.Index)
		case "timeout":
			err = durationArg(d, &m.Timeout)
		case "tenant_key":
			args := d.RemainingArgs()
			if len(args) != 2 {
				return d.ArgErr()
			}
			m.TenantKey, m.TenantKeyUID = args[0], args[1]
		default:
			return d.Errf("unrecognized meilisearch option %q", d.Val())
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (r *RAGFlowConfig) unmarshal(d *caddyfile.Dispenser) error {
	if d.NextArg() {
		return d.ArgErr()
	}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		var err error
		switch d.Val() {
		case "url":
			err = oneArg(d, &r.URL)
		case "api_key":
			err = oneArg(d, &r.APIKey)
		case "timeout":
			err = durationArg(d, &r.Timeout)
		case "stream":
			err = onOff(d, &r.Stream)
		case "page_size":
			err = intArg(d, &r.PageSize, 1, 100)
		case "similarity_threshold":
			err = fractionArg(d, &r.SimilarityThreshold)
		case "high_score":
			err = fractionArg(d, &r.HighScore)
		case "medium_score":
			err = fractionArg(d, &r.MediumScore)
		case "empty_response":
			var text string
			err = oneArg(d, &text)
			r.EmptyResponses = append(r.EmptyResponses, text)
		default:
			return d.Errf("unrecognized ragflow option %q", d.Val())
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (c *SessionsConfig) unmarshal(d *caddyfile.Dispenser) error {
	if d.NextArg() {
		return d.ArgErr()
	}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		var err error
		switch d.Val() {
		case "ttl":
			err = durationArg(d, &c.TTL)
		case "max_turns":
			err = intArg(d, &c.MaxTurns, 1, 100)
		case "max_context_tokens":
			err = intArg(d, &c.MaxContextTokens, 500, 200000)
		case "max_memory":
			var n int64
			err = sizeArg(d, &n)
			c.MaxMemoryBytes = int(n)
		default:
			return d.Errf("unrecognized sessions option %q", d.Val())
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (c *FeedbackConfig) unmarshal(d *caddyfile.Dispenser) error {
	if d.NextArg() {
		return d.ArgErr()
	}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		var err error
		switch d.Val() {
		case "path":
			err = oneArg(d, &c.Path)
		case "github":
			c.GitHub = new(GitHubConfig)
			err = c.GitHub.unmarshal(d)
		default:
			return d.Errf("unrecognized feedback option %q", d.Val())
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (g *GitHubConfig) unmarshal(d *caddyfile.Dispenser) error {
	if d.NextArg() {
		return d.ArgErr()
	}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		var err error
		switch d.Val() {
		case "repo":
			err = oneArg(d, &g.Repo)
		case "token":
			err = oneArg(d, &g.Token)
		case "api_url":
			err = oneArg(d, &g.APIURL)
		case "labels":
			err = manyArgs(d, &g.Labels)
		default:
			return d.Errf("unrecognized github option %q", d.Val())
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func intArg(d *caddyfile.Dispenser, dst *int, lo, hi int) error {
	var v string
	if err := oneArg(d, &v); err != nil {
		return err
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return d.Errf("want a whole number from %d to %d, not %q", lo, hi, v)
	}
	*dst = n
	return nil
}

func fractionArg(d *caddyfile.Dispenser, dst *float64) error {
	var v string
	if err := oneArg(d, &v); err != nil {
		return err
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0 || f > 1 {
		return d.Errf("want a number from 0 to 1, not %q", v)
	}
	*dst = f
	return nil
}

func oneArg(d *caddyfile.Dispenser, dst *string) error {
	if !d.NextArg() {
		return d.ArgErr()
	}
	*dst = d.Val()
	if d.NextArg() {
		return d.ArgErr()
	}
	return nil
}

func manyArgs(d *caddyfile.Dispenser, dst *[]string) error {
	args := d.RemainingArgs()
	if len(args) == 0 {
		return d.ArgErr()
	}
	*dst = args
	return nil
}

func noArgs(d *caddyfile.Dispenser) error {
	if d.NextArg() {
		return d.ArgErr()
	}
	return nil
}

func onOff(d *caddyfile.Dispenser, dst **bool) error {
	var v string
	if err := oneArg(d, &v); err != nil {
		return err
	}
	switch v {
	case "on":
		b := true
		*dst = &b
	case "off":
		b := false
		*dst = &b
	default:
		return d.Errf("expected on or off, got %q", v)
	}
	return nil
}

func durationArg(d *caddyfile.Dispenser, dst *caddy.Duration) error {
	var v string
	if err := oneArg(d, &v); err != nil {
		return err
	}
	dur, err := caddy.ParseDuration(v)
	if err != nil {
		return d.Errf("bad duration %q: %v", v, err)
	}
	*dst = caddy.Duration(dur)
	return nil
}

// sizeArg accepts a byte count, optionally with a KiB/MiB suffix.
func sizeArg(d *caddyfile.Dispenser, dst *int64) error {
	var v string
	if err := oneArg(d, &v); err != nil {
		return err
	}
	mult := int64(1)
	for suffix, m := range map[string]int64{"KiB": 1 << 10, "MiB": 1 << 20, "KB": 1000, "MB": 1000 * 1000} {
		if n := len(v) - len(suffix); n > 0 && v[n:] == suffix {
			v, mult = v[:n], m
			break
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return d.Errf("bad size %q: want a positive number of bytes, optionally with KiB or MiB", d.Val())
	}
	*dst = n * mult
	return nil
}
