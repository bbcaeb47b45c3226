// Package deploy holds the deployment material (Dockerfile, systemd unit,
// Caddyfiles). Docker is not available to the tests: they run the
// Dockerfile's build command line itself and check what it produces, and
// validate the shipped configurations with that binary.
package deploy

import (
	"bufio"
	"context"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// dockerBuildLine is the Dockerfile's `RUN CGO_ENABLED=0 go build …` line,
// with the build arguments given values and the output put in dir.
func dockerBuildLine(t *testing.T, out string) string {
	t.Helper()
	f, err := os.Open("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "RUN CGO_ENABLED=0 go build ")
		if !ok {
			continue
		}
		if !strings.Contains(line, " -o /out/wikigate ") {
			t.Fatalf("the build line no longer writes /out/wikigate: %s", line)
		}
		line = strings.NewReplacer("${VERSION}", "v0.0.0-test", "${COMMIT}", "0123abcdef", " -o /out/wikigate ", " -o "+out+" ").Replace(line)
		return "CGO_ENABLED=0 go build " + line
	}
	t.Fatal("no `RUN CGO_ENABLED=0 go build` line in the Dockerfile")
	return ""
}

// buildAsDocker builds the binary with the Dockerfile's command line from
// the repository root.
func buildAsDocker(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "wikigate")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", dockerBuildLine(t, bin))
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the Dockerfile's build line failed: %v\n%s", err, out)
	}
	return bin
}

func TestDockerBuildLineMakesAStaticBinaryThatNamesItsVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the whole binary")
	}
	bin := buildAsDocker(t)
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	libs, _ := f.ImportedLibraries()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("the binary needs a dynamic loader (libraries %v): it would not start on distroless/static", libs)
		}
	}
	f.Close()
	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil {
		t.Fatalf("wikigate version: %v\n%s", err, out)
	}
	if !regexp.MustCompile(`^wikigate v0\.0\.0-test \(commit 0123abcdef\)\ncaddy v2\.\d+\.\d+`).Match(out) {
		t.Errorf("wikigate version printed %q", out)
	}
	t.Run("development backends refused", func(t *testing.T) { refusesDevBackends(t, bin) })
	t.Run("image Caddyfile validates", func(t *testing.T) { validate(t, bin, "Caddyfile.docker", nil) })
	t.Run("production Caddyfile validates", func(t *testing.T) {
		validate(t, bin, "Caddyfile.production", map[string]string{
			"WIKIGATE_DOMAIN": "wiki-gate.example.com", "WIKIGATE_ACME_EMAIL": "ops@example.com",
			"WIKIGATE_AGENT_ISSUER": "https://idp.example.com", "WIKIGATE_AGENT_JWKS_URL": "https://idp.example.com/jwks.json",
			"WIKIGATE_SSO_ISSUER": "https://sso.example.com", "WIKIGATE_SSO_JWKS_URL": "https://sso.example.com/jwks.json",
			"WIKIGATE_DOCS_ORIGIN": "https://docs.example.com",
		})
	})
}

// validate runs `wikigate validate` on a deploy/ Caddyfile with the
// environment an operator would give it, all state in a temporary
// directory, and the repo's policy.
func validate(t *testing.T, bin, caddyfile string, extra map[string]string) {
	dir := t.TempDir()
	policy, _ := filepath.Abs("../rego")
	cmd := exec.Command(bin, "validate", "--config", caddyfile, "--adapter", "caddyfile")
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_DATA_HOME="+dir, "XDG_CONFIG_HOME="+dir,
		"WIKIGATE_DATA_DIR="+dir, "WIKIGATE_LOG_DIR="+dir, "WIKIGATE_POLICY_DIR="+policy,
		"WIKIGATE_API_KEYS_FILE="+filepath.Join(dir, "api_keys.json"), "WIKIGATE_LISTEN=127.0.0.1:0",
		"WIKIGATE_MEILI_URL=http://meili.internal:7700", "WIKIGATE_RAGFLOW_URL=http://ragflow.internal:9380",
		"WIKIGATE_MEILI_SEARCH_KEY=0123", "WIKIGATE_MEILI_SEARCH_KEY_UID=7b3c6f2e-8a41-4d5e-9c07-2f1a6b9d4e80",
		"WIKIGATE_RAGFLOW_KEY=ragflow-x")
	for k, v := range extra {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Valid configuration") {
		t.Fatalf("wikigate validate %s: %v\n%s", caddyfile, err, out)
	}
}

// The image's default configuration runs the gate only: the development
// backends stay out of production, and so does the development secret.
func TestImageConfigurationHasNoDevelopmentParts(t *testing.T) {
	for _, file := range []string{"Caddyfile.docker", "Caddyfile.production"} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, dev := range []string{"wikigate_dev_meilisearch", "wikigate_dev_ragflow", "WIKIGATE_DEV_JWT_SECRET", "WIKIGATE_MEILI_KEY}", "demo on"} {
			if strings.Contains(string(b), dev) {
				t.Errorf("%s holds %q", file, dev)
			}
		}
	}
	b, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	df := string(b)
	for _, want := range []string{"AS build", "FROM gcr.io/distroless/static-debian12:nonroot", "USER nonroot:nonroot", "COPY deploy/Caddyfile.docker /etc/wikigate/Caddyfile"} {
		if !strings.Contains(df, want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
}

// refusesDevBackends checks that the image's binary, built without the
// development backends, refuses the repo's default Caddyfile (which runs
// them) with a message naming the build tag, and neither starts nor panics.
func refusesDevBackends(t *testing.T, bin string) {
	dir := t.TempDir()
	cmd := exec.Command(bin, "validate", "--config", "../Caddyfile", "--adapter", "caddyfile")
	cmd.Env = append(os.Environ(), "WIKIGATE_DATA_DIR="+dir, "WIKIGATE_LISTEN=127.0.0.1:0")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the image's binary accepted the development backends:\n%s", out)
	}
	for _, want := range []string{"wikigate_dev_meilisearch", "built with -tags nodevbackends", "go build -o wikigate ./cmd/wikigate"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the refusal does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "panic") || strings.Contains(string(out), "goroutine ") {
		t.Errorf("the refusal panicked:\n%s", out)
	}
}

// The Dockerfile's build tags leave every devbackends package out of the
// binary, while the default build (README, Quick start) keeps them.
func TestDockerBuildLeavesDevelopmentBackendsOut(t *testing.T) {
	tags := regexp.MustCompile(`-tags (\S+)`).FindStringSubmatch(dockerBuildLine(t, "wikigate"))
	if tags == nil {
		t.Fatal("the Dockerfile's build line sets no build tags")
	}
	for _, c := range []struct {
		args    []string
		wantDev bool
	}{{[]string{"-tags", tags[1]}, false}, {nil, true}} {
		args := append(append([]string{"list", "-deps"}, c.args...), "./cmd/wikigate")
		cmd := exec.Command("go", args...)
		cmd.Dir = ".."
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go %v: %v", args, err)
		}
		hasDev := strings.Contains(string(out), "github.com/wikigate/wikigate/devbackends/")
		if hasDev != c.wantDev {
			t.Errorf("go %v lists devbackends packages: %v, want %v", args, hasDev, c.wantDev)
		}
	}
}
