package wikigatecmd

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"

	"github.com/wikigate/wikigate/policies"
)

// init registers `wikigate policy`, the security team's tooling, as a
// top-level command so it reads as the team expects (`wikigate policy
// build`), beside Caddy's own.
func init() {
	caddycmd.RegisterCommand(caddycmd.Command{
		Name:  "policy",
		Usage: "build|test|replay|diff|explain ...",
		Short: "Builds policy bundles, replays recorded decisions and explains one (no opa binary needed)",
		Long: `Writes rego/ (policy and data, never *_test.rego) as an OPA bundle, the
format opa build writes, after its tests pass: serve it to gates configured
with policy { bundle <url> }.

  wikigate policy build -o bundle.tar.gz --revision 2026-05-01.1
  wikigate policy build --signing-key team.pem --signing-alg ES256 --key-id team
  wikigate policy build --signing-key env:BUNDLE_SECRET --signing-alg HS256

Runs a policy folder's tests, with coverage (policy test [DIR] --coverage
--min-coverage N), replays recorded decisions against a candidate policy
(policy replay) and explains one decision (policy explain).`,
		CobraFunc: func(cmd *cobra.Command) {
			cmd.AddCommand(policyBuildCommand(), policyTestCommand(), policyReplayCommand(), policyDiffCommand(), policyExplainCommand())
			refuseUnknownSubcommands(cmd)
		},
	})
}

type buildFlags struct {
	dir, out, revision, key, alg, keyID string
	skipTests                           bool
	stdout                              io.Writer // nil: os.Stdout
}

func policyBuildCommand() *cobra.Command {
	var f buildFlags
	c := &cobra.Command{
		Use:   "build [-o bundle.tar.gz]",
		Short: "Writes the policy folder as a (signed) OPA bundle once its tests pass",
		RunE:  func(cmd *cobra.Command, _ []string) error { return f.run(cmd.Context()) },
	}
	fl := c.Flags()
	fl.StringVar(&f.dir, "dir", "rego", "policy folder")
	fl.StringVarP(&f.out, "output", "o", "bundle.tar.gz", "bundle file to write")
	fl.StringVar(&f.revision, "revision", "", "manifest revision (default: the folder's hash, as the gate shows it)")
	fl.StringVar(&f.key, "signing-key", "", "sign with this PEM private key file (RS256/ES256) or, for HS256, env:NAME holding the secret")
	fl.StringVar(&f.alg, "signing-alg", "", "signing algorithm (RS256, ES256, HS256...; default: ES256/ES384/ES512 for an EC key by its curve, else RS256)")
	fl.StringVar(&f.keyID, "key-id", "", "kid named in the signature")
	fl.BoolVar(&f.skipTests, "skip-tests", false, "build even when the policy's tests fail")
	return c
}

func (f *buildFlags) run(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := policies.CheckDir(ctx, f.dir); err != nil {
		return fmt.Errorf("not building: %w", err) // a type error first: it would only show as failing tests
	}
	if !f.skipTests {
		failed, err := policies.RunTests(ctx, f.dir)
		if err != nil {
			return err
		}
		if failed != nil {
			return fmt.Errorf("not building: %d policy tests fail:\n  %s", len(failed.Details), strings.Join(failed.Details, "\n  "))
		}
	}
	key, err := signingKey(f.key)
	if err != nil {
		return err
	}
	if f.alg == "" {
		f.alg = algorithmOf(key)
	}
	var buf bytes.Buffer
	rev, err := policies.BuildBundle(ctx, f.dir, &buf, policies.BuildOptions{Revision: f.revision, SigningKey: key, SigningAlg: f.alg, KeyID: f.keyID})
	if err != nil {
		return err
	}
	if err := os.WriteFile(f.out, buf.Bytes(), 0o644); err != nil {
		return err
	}
	signed := "unsigned"
	if key != "" {
		signed = "signed " + f.alg
	}
	w := f.stdout
	if w == nil {
		w = os.Stdout
	}
	fmt.Fprintf(w, "wrote %s: revision %s, %s\n", f.out, rev, signed)
	reportWasm(ctx, w, f.dir)
	return nil
}

// reportWasm tells the security team, before the bundle ships, whether
// gates will decide it with Wasm (evaluator auto), or with topdown and
// why: a policy that decides differently in Wasm still works, but slower,
// and evaluator wasm refuses it.
func reportWasm(ctx context.Context, w io.Writer, dir string) {
	if n, err := policies.CheckWasm(ctx, dir); err != nil {
		fmt.Fprintf(w, "warning: gates will decide this policy with topdown, not wasm (evaluator auto): %v\n", err)
	} else {
		fmt.Fprintf(w, "wasm: decides like topdown on %d calls, so gates decide it with wasm\n", n)
	}
}

// algorithmOf is the signing algorithm a PEM private key implies: ES256,
// ES384 or ES512 for an EC key by its curve, RS256 (OPA's default) for
// anything else. Signing an EC key as RS256 fails inside the JWT library
// with a message that does not say to pass --signing-alg.
func algorithmOf(key string) string {
	block, _ := pem.Decode([]byte(key))
	if block == nil {
		return "RS256"
	}
	var ec *ecdsa.PrivateKey
	if k, err := x509.ParseECPrivateKey(block.Bytes); err == nil {
		ec = k
	} else if k, err := x509.ParsePKCS8PrivateKey(block.Bytes); err == nil {
		ec, _ = k.(*ecdsa.PrivateKey)
	}
	if ec == nil {
		return "RS256"
	}
	switch ec.Curve.Params().BitSize {
	case 384:
		return "ES384"
	case 521:
		return "ES512"
	}
	return "ES256"
}

// signingKey reads the key's file, or the secret from env:NAME, so a
// secret never has to appear on a command line.
func signingKey(flag string) (string, error) {
	if flag == "" {
		return "", nil
	}
	if name, ok := strings.CutPrefix(flag, "env:"); ok {
		v := os.Getenv(name)
		if v == "" {
			return "", fmt.Errorf("signing key: $%s is empty", name)
		}
		return v, nil
	}
	raw, err := os.ReadFile(flag)
	if err != nil {
		return "", errors.New("signing key: " + err.Error())
	}
	return string(raw), nil
}
