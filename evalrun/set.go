// Package evalrun measures a running gate's answer quality against an
// evaluation set (docs/eval.md "Measuring answer quality"): each case is asked
// through the gate's public routes as its caller, and the search ranks,
// citations, no-answers, leaks, confidence and latency are scored against
// the pages the case expects.
package evalrun

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Kinds of a case.
const (
	KindAnswerable   = "answerable"   // the expected pages answer it
	KindUnanswerable = "unanswerable" // the wiki cannot answer it: a no-answer is right
	KindRestricted   = "restricted"   // only pages the caller may not see answer it: a no-answer (or a denial) is right
)

// Caller kinds: which credential a case is asked with, and so which routes.
const (
	CallerAnonymous = "anonymous" // people's routes, no credential
	CallerHuman     = "human"     // people's routes, Authorization: Bearer <SSO token>
	CallerAgent     = "agent"     // agents' routes, Authorization: Bearer <agent JWT>
	CallerAPIKey    = "apikey"    // agents' routes, X-Agent-Api-Key: <key>
)

// Set is an evaluation set file (JSON or YAML).
type Set struct {
	// Callers names the credentials cases use; "anonymous" is always defined.
	Callers map[string]Caller `yaml:"callers" json:"callers"`
	Cases   []Case            `yaml:"cases" json:"cases"`
}

// Caller is one credential. TokenEnv names the environment variable that
// holds the token or key, so a set file never holds a secret. Allowed and
// Forbidden bound what the caller may be shown (path prefixes; see Leak).
type Caller struct {
	Kind      string   `yaml:"kind" json:"kind"`
	TokenEnv  string   `yaml:"tokenEnv" json:"tokenEnv"`
	Allowed   []string `yaml:"allowed" json:"allowed"`
	Forbidden []string `yaml:"forbidden" json:"forbidden"`
}

// Case is one question.
type Case struct {
	ID       string   `yaml:"id" json:"id"`
	Question string   `yaml:"question" json:"question"`
	Kind     string   `yaml:"kind" json:"kind"`
	Expected []string `yaml:"expected" json:"expected"` // page paths that answer it
	Caller   string   `yaml:"caller" json:"caller"`     // a Callers name; default anonymous
	Scope    *Scope   `yaml:"scope" json:"scope,omitempty"`
	Page     *Page    `yaml:"page" json:"page,omitempty"`
	// Allowed and Forbidden add to the caller's (path prefixes).
	Allowed   []string `yaml:"allowed" json:"allowed,omitempty"`
	Forbidden []string `yaml:"forbidden" json:"forbidden,omitempty"`
}

// Scope is the request's scope, as the protocol spells it.
type Scope struct {
	Projects           []string `yaml:"projects" json:"projects,omitempty"`
	Paths              []string `yaml:"paths" json:"paths,omitempty"`
	Version            string   `yaml:"version" json:"version,omitempty"`
	IncludeWorkingDocs bool     `yaml:"includeWorkingDocs" json:"includeWorkingDocs"`
}

// Page is the page a person asks from.
type Page struct {
	Path string `yaml:"path" json:"path,omitempty"`
	URL  string `yaml:"url" json:"url,omitempty"`
}

// LoadSet reads and checks a set file. YAML is a superset of JSON, so one
// strict decoder reads both; an unknown field is an error, not a silent
// typo.
func LoadSet(name string) (*Set, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return ParseSet(b)
}

// ParseSet decodes and checks a set.
func ParseSet(b []byte) (*Set, error) {
	var s Set
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("set: %w", err)
	}
	if s.Callers == nil {
		s.Callers = map[string]Caller{}
	}
	if _, ok := s.Callers[CallerAnonymous]; !ok {
		s.Callers[CallerAnonymous] = Caller{Kind: CallerAnonymous}
	}
	return &s, s.check()
}

func (s *Set) check() error {
	var errs []error
	for name, c := range s.Callers {
		switch c.Kind {
		case CallerAnonymous:
		case CallerHuman, CallerAgent, CallerAPIKey:
			if c.TokenEnv == "" {
				errs = append(errs, fmt.Errorf("caller %q: kind %s needs tokenEnv", name, c.Kind))
			}
		default:
			errs = append(errs, fmt.Errorf("caller %q: kind %q is not anonymous, human, agent or apikey", name, c.Kind))
		}
	}
	if len(s.Cases) == 0 {
		errs = append(errs, errors.New("set has no cases"))
	}
	seen := map[string]bool{}
	for i := range s.Cases {
		c := &s.Cases[i]
		if c.Caller == "" {
			c.Caller = CallerAnonymous
		}
		if err := s.checkCase(c, seen); err != nil {
			errs = append(errs, fmt.Errorf("case %d (%s): %w", i+1, c.ID, err))
		}
	}
	return errors.Join(errs...)
}

func (s *Set) checkCase(c *Case, seen map[string]bool) error {
	switch {
	case c.ID == "":
		return errors.New("id is empty")
	case seen[c.ID]:
		return errors.New("id is used twice")
	case strings.TrimSpace(c.Question) == "":
		return errors.New("question is empty")
	}
	seen[c.ID] = true
	caller, ok := s.Callers[c.Caller]
	if !ok {
		return fmt.Errorf("caller %q is not defined", c.Caller)
	}
	switch c.Kind {
	case KindAnswerable:
		if len(c.Expected) == 0 {
			return errors.New("an answerable case needs expected pages")
		}
	case KindUnanswerable:
	case KindRestricted:
		if len(c.Allowed)+len(c.Forbidden)+len(caller.Allowed)+len(caller.Forbidden) == 0 {
			return errors.New("a restricted case needs allowed or forbidden prefixes (on the case or its caller)")
		}
	default:
		return fmt.Errorf("kind %q is not answerable, unanswerable or restricted", c.Kind)
	}
	return nil
}

// bounds returns the case's allowed and forbidden prefixes, its caller's
// included.
func (s *Set) bounds(c Case) (allowed, forbidden []string) {
	caller := s.Callers[c.Caller]
	allowed = append(append([]string{}, caller.Allowed...), c.Allowed...)
	forbidden = append(append([]string{}, caller.Forbidden...), c.Forbidden...)
	return allowed, forbidden
}
