package caddymodule

import (
	"slices"
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
//		site_mapping     <mapping file>
//		policy {
//			require_tests       on|off
//			bundle              <dir | file.tar.gz | https://...>
//			bundle_poll         <min> [<max>]
//			verification_key    <kid> <alg> <pem file | secret>
//			verification_key_id <kid>
//			verification_scope  <scope>
//			evaluator           auto|topdown|wasm
//		}
//		watch_policy     on|off
//		max_body_size    <bytes>
//		decision_timeout <duration>
//		backend_timeout  <duration>
//		log_questions
//		token_metrics_per_caller
//		api_keys_file    <path>
//		agent_jwt {
//			issuer      <iss>
//			audience    <aud...>
//			algorithms  <alg...>
//			hmac_secret [<kid>] <secret>
//			public_key  <kid> <pem file>
//			jwks_url    <url>
//			leeway      <duration>
//			max_ttl     <duration>
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
//			retrieval_timeout    <duration>
//			first_byte_timeout   <duration>
//			idle_timeout         <duration>
//			timeout              <duration>
//			stream               on|off
//			page_size            <n>
//			similarity_threshold <0..1>
//			high_score           <0..1>
//			medium_score         <0..1>
//			support_threshold    <0..1>
//			min_supported        <0..1>
//			empty_response       <text>
//			retrieval {
//				queries      <1..3>
//				rerank_id    <model id>
//				keyword      on|off
//				min_coverage <0..1>
//			}
//		}
//		sessions {
//			store              memory|redis
//			ttl                <duration>
//			max_turns          <n>
//			max_context_tokens <n>
//			max_memory         <bytes>[KiB|MiB]
//			anonymous_memory   <bytes>[KiB|MiB]
//			anonymous_sessions <n>
//		}
//		redis {
//			url             <redis:// or rediss:// URL>
//			username        <user>
//			password        <password>
//			tls             on|off
//			tls_ca_file     <pem file>
//			tls_server_name <name>
//			key_prefix      <prefix>
//			pool_size       <n>
//			timeout         <duration>
//		}
//		feedback {
//			path <bbolt file>
//			github {
//				repo    <owner/name>
//				token   <token>
//				api_url <url>
//				labels  <label...>
//			}
//			people_limit <burst> <every>
//		}
//		mcp {
//			enable                  on|off
//			path                    <path>
//			allowed_origins         <origin...>
//			allowed_hosts           <host...>
//			authorization_servers   <url...>
//			resource                <url>
//			scopes                  <scope...>
//			session_idle_timeout    <duration>
//			max_sessions_per_caller <n>
//		}
//		cors {
//			allowed_origins <origin...>
//			credentials     on|off
//			max_age         <duration>
//			allowed_headers <header...>
//			paths           <prefix...>
//		}
//		streaming {
//			keep_alive     <duration>
//			max_per_caller <n>
//			max_open       <n>
//			retry_after    <duration>
//			resume_window  <duration>
//		}
//		widget {
//			demo on|off
//		}
//	}
func (h *Handler) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // directive name
	return parseBlock(d, "wikigate", map[string]func() error{
		"site_mode":                func() error { return oneArg(d, &h.SiteMode) },
		"policy_dir":               func() error { return oneArg(d, &h.PolicyDir) },
		"site_mapping":             func() error { return oneArg(d, &h.SiteMapping) },
		"policy":                   func() error { h.Policy = new(PolicyConfig); return h.Policy.unmarshal(d) },
		"watch_policy":             func() error { return onOff(d, &h.WatchPolicy) },
		"max_body_size":            func() error { return sizeArg(d, &h.MaxBodyBytes) },
		"decision_timeout":         func() error { return durationArg(d, &h.DecisionTimeout) },
		"backend_timeout":          func() error { return durationArg(d, &h.BackendTimeout) },
		"log_questions":            func() error { h.LogQuestions = true; return noArgs(d) },
		"token_metrics_per_caller": func() error { h.TokenMetricsPerCaller = true; return noArgs(d) },
		"api_keys_file":            func() error { return oneArg(d, &h.APIKeysFile) },
		"agent_jwt":                func() error { h.AgentJWT = new(JWTConfig); return h.AgentJWT.unmarshal(d, false) },
		"human_jwt":                func() error { h.HumanJWT = new(JWTConfig); return h.HumanJWT.unmarshal(d, true) },
		"meilisearch":              func() error { h.Meilisearch = new(MeiliConfig); return h.Meilisearch.unmarshal(d) },
		"ragflow":                  func() error { h.RAGFlow = new(RAGFlowConfig); return h.RAGFlow.unmarshal(d) },
		"sessions":                 func() error { h.Sessions = new(SessionsConfig); return h.Sessions.unmarshal(d) },
		"redis":                    func() error { h.Redis = new(RedisConfig); return h.Redis.unmarshal(d) },
		"postgres":                 func() error { h.Postgres = new(PostgresConfig); return h.Postgres.unmarshal(d) },
		"feedback":                 func() error { h.Feedback = new(FeedbackConfig); return h.Feedback.unmarshal(d) },
		"mcp":                      func() error { h.MCP = new(MCPConfig); return h.MCP.unmarshal(d) },
		"cors":                     func() error { h.CORS = new(CORSConfig); return h.CORS.unmarshal(d) },
		"streaming":                func() error { h.Streaming = new(StreamingConfig); return h.Streaming.unmarshal(d) },
		"widget":                   func() error { h.Widget = new(WidgetConfig); return h.Widget.unmarshal(d) },
	})
}

// parseBlock walks the block that follows the current token, handing each
// option to its parser. Unknown options, duplicates (except the repeatable
// ones) and arguments before the block are errors that name the line.
func parseBlock(d *caddyfile.Dispenser, what string, opts map[string]func() error, repeatable ...string) error {
	if d.NextArg() {
		return d.ArgErr()
	}
	seen := map[string]bool{}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		opt := d.Val()
		parse, ok := opts[opt]
		if !ok {
			return d.Errf("unrecognized %s option %q", what, opt)
		}
		if seen[opt] && !slices.Contains(repeatable, opt) {
			return d.Errf("duplicate %s option %q", what, opt)
		}
		seen[opt] = true
		if err := parse(); err != nil {
			return err
		}
	}
	return nil
}

func (j *JWTConfig) unmarshal(d *caddyfile.Dispenser, human bool) error {
	opts := map[string]func() error{
		"issuer":      func() error { return oneArg(d, &j.Issuer) },
		"audience":    func() error { return manyArgs(d, &j.Audience) },
		"algorithms":  func() error { return manyArgs(d, &j.Algorithms) },
		"hmac_secret": func() error { return j.unmarshalHMAC(d) },
		"public_key":  func() error { return j.unmarshalPublicKey(d) },
		"jwks_url":    func() error { return oneArg(d, &j.JWKSURL) },
		"leeway":      func() error { return durationArg(d, &j.Leeway) },
		"max_ttl":     func() error { return durationArg(d, &j.MaxTTL) },
	}
	if human {
		opts["roles_claim"] = func() error { return oneArg(d, &j.RolesClaim) }
	}
	return parseBlock(d, "token", opts, "hmac_secret", "public_key")
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
	return parseBlock(d, "meilisearch", map[string]func() error{
		"url":     func() error { return oneArg(d, &m.URL) },
		"api_key": func() error { return oneArg(d, &m.APIKey) },
		"index":   func() error { return oneArg(d, &m.Index) },
		"timeout": func() error { return durationArg(d, &m.Timeout) },
		"tenant_key": func() error {
			args := d.RemainingArgs()
			if len(args) != 2 {
				return d.ArgErr()
			}
			m.TenantKey, m.TenantKeyUID = args[0], args[1]
			return nil
		},
	})
}

func (r *RAGFlowConfig) unmarshal(d *caddyfile.Dispenser) error {
	return parseBlock(d, "ragflow", map[string]func() error{
		"url":                  func() error { return oneArg(d, &r.URL) },
		"api_key":              func() error { return oneArg(d, &r.APIKey) },
		"retrieval_timeout":    func() error { return durationArg(d, &r.RetrievalTimeout) },
		"first_byte_timeout":   func() error { return durationArg(d, &r.FirstByteTimeout) },
		"idle_timeout":         func() error { return durationArg(d, &r.IdleTimeout) },
		"timeout":              func() error { return durationArg(d, &r.Timeout) },
		"stream":               func() error { return onOff(d, &r.Stream) },
		"page_size":            func() error { return intArg(d, &r.PageSize, 1, 100) },
		"similarity_threshold": func() error { return fractionArg(d, &r.SimilarityThreshold) },
		"high_score":           func() error { return fractionArg(d, &r.HighScore) },
		"medium_score":         func() error { return fractionArg(d, &r.MediumScore) },
		"support_threshold":    func() error { return fractionArg(d, &r.SupportThreshold) },
		"min_supported":        func() error { return fractionArg(d, &r.MinSupported) },
		"retrieval":            func() error { r.Retrieval = new(RetrievalConfig); return r.Retrieval.unmarshal(d) },
		"empty_response": func() error {
			var text string
			err := oneArg(d, &text)
			r.EmptyResponses = append(r.EmptyResponses, text)
			return err
		},
	}, "empty_response")
}

func (c *SessionsConfig) unmarshal(d *caddyfile.Dispenser) error {
	return parseBlock(d, "sessions", map[string]func() error{
		"store": func() error {
			if err := oneArg(d, &c.Store); err != nil {
				return err
			}
			if c.Store != "memory" && c.Store != "redis" {
				return d.Errf("sessions store must be memory or redis, not %q", c.Store)
			}
			return nil
		},
		"ttl":                func() error { return durationArg(d, &c.TTL) },
		"max_turns":          func() error { return intArg(d, &c.MaxTurns, 1, 100) },
		"max_context_tokens": func() error { return intArg(d, &c.MaxContextTokens, 500, 200000) },
		"max_memory": func() error {
			var n int64
			err := sizeArg(d, &n)
			c.MaxMemoryBytes = int(n)
			return err
		},
		"anonymous_memory": func() error {
			var n int64
			err := sizeArg(d, &n)
			c.AnonymousMemoryBytes = int(n)
			return err
		},
		"anonymous_sessions": func() error { return intArg(d, &c.AnonymousSessions, 1, 10_000_000) },
	})
}

func (c *FeedbackConfig) unmarshal(d *caddyfile.Dispenser) error {
	return parseBlock(d, "feedback", map[string]func() error{
		"store": func() error {
			if err := oneArg(d, &c.Store); err != nil {
				return err
			}
			if c.Store != "bolt" && c.Store != "postgres" {
				return d.Errf("feedback store must be bolt or postgres, not %q", c.Store)
			}
			return nil
		},
		"path":   func() error { return oneArg(d, &c.Path) },
		"github": func() error { c.GitHub = new(GitHubConfig); return c.GitHub.unmarshal(d) },
		"people_limit": func() error {
			c.PeopleLimit = new(PeopleFeedbackLimit)
			return c.PeopleLimit.unmarshal(d)
		},
	})
}

func (g *GitHubConfig) unmarshal(d *caddyfile.Dispenser) error {
	return parseBlock(d, "github", map[string]func() error{
		"repo":    func() error { return oneArg(d, &g.Repo) },
		"token":   func() error { return oneArg(d, &g.Token) },
		"api_url": func() error { return oneArg(d, &g.APIURL) },
		"labels":  func() error { return manyArgs(d, &g.Labels) },
	})
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
