package devmeili

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash"
	"regexp"
	"sort"
	"strings"
	"time"
)

// tenantClaims are the claims of a tenant token (docs/backends.md,
// Meilisearch wire details: Tenant tokens).
type tenantClaims struct {
	rules     searchRules
	apiKeyUID string
	exp       *int64
	hasAud    bool
}

// searchRules maps index patterns ("movies", "mov*", "*") to an optional filter.
type searchRules map[string]any

var hmacAlgorithms = map[string]func() hash.Hash{
	"HS256": sha256.New, "HS384": sha512.New384, "HS512": sha512.New,
}

var uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$`)

func tokenError(detail string) *apiError {
	return newError("invalid_api_key", "Could not decode tenant token, %s.", detail)
}

// looksLikeJWT: three base64url parts whose first decodes to a JSON object.
// Anything else is looked up as an API key, as the engine does.
func looksLikeJWT(token string) bool {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return false
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[0])
	var header map[string]any
	return err == nil && json.Unmarshal(raw, &header) == nil
}

// verifyTenantToken checks a tenant token against the parent key (keyUID,
// key) in the engine's order: header, claims, parent key, signature,
// audience, expiry.
func verifyTenantToken(token, keyUID, key string, now time.Time) (tenantClaims, *apiError) {
	parts := strings.Split(token, ".")
	headerRaw, _ := base64.RawURLEncoding.DecodeString(parts[0])
	var header struct {
		Alg string `json:"alg"`
	}
	_ = json.Unmarshal(headerRaw, &header)
	newHash, ok := hmacAlgorithms[header.Alg]
	if !ok {
		return tenantClaims{}, tokenError("InvalidAlgorithm")
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return tenantClaims{}, tokenError("Base64 error: Invalid input")
	}
	claims, detail := decodeClaims(payload)
	if detail != "" {
		return tenantClaims{}, tokenError("JSON error: " + detail)
	}
	if claims.apiKeyUID != keyUID {
		return tenantClaims{}, errInvalidAPIKey()
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	mac := hmac.New(newHash, []byte(key))
	mac.Write([]byte(parts[0] + "." + parts[1]))
	if err != nil || !hmac.Equal(sig, mac.Sum(nil)) {
		return tenantClaims{}, tokenError("InvalidSignature")
	}
	if claims.hasAud {
		return tenantClaims{}, tokenError("InvalidAudience")
	}
	if claims.exp != nil && now.Unix() > *claims.exp {
		return tenantClaims{}, newError("invalid_api_key",
			"Tenant token expired. Was valid up to `%d` and we're now `%d`.", *claims.exp, now.Unix())
	}
	return claims, nil
}

// decodeClaims parses the payload, returning serde-style error text (with
// line and column) when it does not fit the engine's Claims struct.
func decodeClaims(payload []byte) (tenantClaims, string) {
	var c tenantClaims
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return c, "invalid type, expected struct Claims at " + jsonPosition(payload, int(dec.InputOffset()))
	}
	seen := map[string]bool{}
	for dec.More() {
		keyTok, err := dec.Token()
		var raw json.RawMessage
		if err == nil {
			err = dec.Decode(&raw)
		}
		at := jsonPosition(payload, int(dec.InputOffset()))
		if err != nil {
			return c, "syntax error at " + at
		}
		key, _ := keyTok.(string)
		seen[key] = true
		if detail := c.setClaim(key, raw); detail != "" {
			return c, detail + " at " + at
		}
	}
	_, _ = dec.Token()
	end := jsonPosition(payload, int(dec.InputOffset()))
	for _, required := range []string{"searchRules", "apiKeyUid"} {
		if !seen[required] {
			return c, "missing field `" + required + "` at " + end
		}
	}
	return c, ""
}

func (c *tenantClaims) setClaim(key string, raw json.RawMessage) string {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	_ = dec.Decode(&v)
	switch key {
	case "searchRules":
		rules, ok := parseSearchRules(v)
		if !ok {
			return "data did not match any variant of untagged enum SearchRules"
		}
		c.rules = rules
	case "apiKeyUid":
		s, ok := v.(string)
		if !ok {
			return "invalid type: " + serdeKind(v) + ", expected a UUID string"
		}
		if !uuidPattern.MatchString(s) {
			return "UUID parsing failed: invalid character or length"
		}
		c.apiKeyUID = canonicalUUID(s)
	case "exp":
		if v == nil {
			c.exp = nil
			return ""
		}
		n, ok := v.(json.Number)
		i, err := n.Int64()
		if !ok || err != nil {
			return "invalid type: " + serdeKind(v) + ", expected i64"
		}
		c.exp = &i
	case "aud":
		c.hasAud = true
	}
	return ""
}

// parseSearchRules accepts ["pattern", ...] or {"pattern": null | {} | {"filter": f}}.
func parseSearchRules(v any) (searchRules, bool) {
	rules := searchRules{}
	switch t := v.(type) {
	case []any:
		for _, item := range t {
			s, ok := item.(string)
			if !ok {
				return nil, false
			}
			rules[s] = nil
		}
	case map[string]any:
		for pattern, rule := range t {
			switch r := rule.(type) {
			case nil:
				rules[pattern] = nil
			case map[string]any:
				rules[pattern] = r["filter"]
			default:
				return nil, false
			}
		}
	default:
		return nil, false
	}
	return rules, true
}

// forIndex returns the filter of the rule that applies to uid: an exact
// pattern beats a wildcard, and a longer wildcard beats a shorter one.
func (r searchRules) forIndex(uid string) (filter any, ok bool) {
	if f, exact := r[uid]; exact {
		return f, true
	}
	best := -1
	for pattern, f := range r {
		prefix, wildcard := strings.CutSuffix(pattern, "*")
		if wildcard && strings.HasPrefix(uid, prefix) && len(pattern) > best {
			best, filter = len(pattern), f
		}
	}
	return filter, best >= 0
}

func (r searchRules) allowedList() string {
	patterns := make([]string, 0, len(r))
	for p := range r {
		patterns = append(patterns, fmt.Sprintf("%q", p))
	}
	sort.Strings(patterns)
	return "[" + strings.Join(patterns, ", ") + "]"
}

func canonicalUUID(s string) string {
	h := strings.ToLower(strings.ReplaceAll(s, "-", ""))
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// jsonPosition renders a byte offset as serde does: "line L column C".
func jsonPosition(b []byte, offset int) string {
	offset = min(max(offset, 0), len(b))
	line := 1 + bytes.Count(b[:offset], []byte("\n"))
	col := offset - (bytes.LastIndexByte(b[:offset], '\n') + 1)
	return fmt.Sprintf("line %d column %d", line, col)
}

// serdeKind names a JSON value as serde's "invalid type" errors do.
func serdeKind(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case bool:
		return fmt.Sprintf("boolean `%v`", t)
	case json.Number:
		return "integer `" + t.String() + "`"
	case string:
		return fmt.Sprintf("string %q", t)
	case []any:
		return "sequence"
	}
	return "map"
}
