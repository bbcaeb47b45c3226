package wikigatecmd

import (
	"net"
	"os"

	"github.com/wikigate/wikigate/caddymodule"
)

// devJWTSecret is the public development JWT secret; the gate warns when a
// configured verifier holds it (caddymodule.DevJWTSecret).
const devJWTSecret = caddymodule.DevJWTSecret

// Development defaults. They make `./wikigate run --config Caddyfile` work
// on a fresh machine; every one is overridden by setting the variable.
// The JWT secret and backend keys are public and unsafe for production.
const (
	devMeiliKey     = "wikigate-dev-meili-master-key"
	devRAGFlowKey   = "ragflow-wikigatedevkeyUNSAFEforproductionuse0000"
	devAgentIssuer  = "wikigate-dev"
	devHumanIssuer  = "wikigate-dev-sso"
	devAudience     = "wikigate"
	envJWTSecret    = "WIKIGATE_DEV_JWT_SECRET"
	envAPIKeysFile  = "WIKIGATE_API_KEYS_FILE"
	envListen       = "WIKIGATE_LISTEN"
	envMeiliDev     = "WIKIGATE_MEILI_DEV"
	envRAGFlowDev   = "WIKIGATE_RAGFLOW_DEV"
	defaultListen   = "127.0.0.1:8080"
	defaultMeiliDev = "127.0.0.1:7700"
	defaultRAGDev   = "127.0.0.1:9380"
)

// applyEnvDefaults fills unset WIKIGATE_* variables. Host:port addresses are
// also split into _HOST and _PORT variables, because a Caddyfile site needs
// the port in its address and the host in `bind`. The gate's backend URLs
// default to the development backends' addresses, so pointing the gate at
// real backends needs only WIKIGATE_MEILI_URL / WIKIGATE_RAGFLOW_URL and keys.
func applyEnvDefaults() {
	setAddress(envListen, defaultListen)
	setAddress(envMeiliDev, defaultMeiliDev)
	setAddress(envRAGFlowDev, defaultRAGDev)
	setDefault("WIKIGATE_DATA_DIR", "data")
	// The admin API listens on a socket only its owner may open (0600).
	setDefault("WIKIGATE_ADMIN", "unix/"+os.Getenv("WIKIGATE_DATA_DIR")+"/admin.sock|0600")
	setDefault("WIKIGATE_MEILI_URL", "http://"+os.Getenv(envMeiliDev))
	setDefault("WIKIGATE_RAGFLOW_URL", "http://"+os.Getenv(envRAGFlowDev))
	setDefault("WIKIGATE_MEILI_KEY", devMeiliKey)
	setDefault("WIKIGATE_MEILI_DEV_MASTER_KEY", devMeiliKey)
	// The gate searches with the development Meilisearch's search-only key
	// (tenant tokens signed with it), never its master key, which only
	// `wikigate ingest` and `wikigate doctor` use (WIKIGATE_MEILI_KEY).
	// A build without the development backends (-tags nodevbackends) has
	// no such default.
	if uid, key := devSearchKey(os.Getenv("WIKIGATE_MEILI_DEV_MASTER_KEY")); key != "" {
		setDefault("WIKIGATE_MEILI_SEARCH_KEY_UID", uid)
		setDefault("WIKIGATE_MEILI_SEARCH_KEY", key)
	}
	setDefault("WIKIGATE_RAGFLOW_KEY", devRAGFlowKey)
	setDefault("WIKIGATE_RAGFLOW_DEV_KEY", devRAGFlowKey)
	setDefault(envJWTSecret, devJWTSecret)
	setDefault(envAPIKeysFile, os.Getenv("WIKIGATE_DATA_DIR")+"/api_keys.json")
}

func setDefault(name, value string) {
	if _, ok := os.LookupEnv(name); !ok {
		_ = os.Setenv(name, value)
	}
}

// setAddress fills a host:port variable and its _HOST and _PORT parts
// from whichever are set: WIKIGATE_LISTEN=127.0.0.1:9000 and
// WIKIGATE_LISTEN_PORT=9000 mean the same, so scripts and the backend URLs
// derived from an address follow either spelling.
func setAddress(name, fallback string) {
	host, port, _ := net.SplitHostPort(fallback)
	if h, ok := os.LookupEnv(name + "_HOST"); ok {
		host = h
	}
	if p, ok := os.LookupEnv(name + "_PORT"); ok {
		port = p
	}
	setDefault(name, net.JoinHostPort(host, port))
	splitHostPort(name)
}

func splitHostPort(name string) {
	host, port, err := net.SplitHostPort(os.Getenv(name))
	if err != nil {
		return // left as is; Caddy reports the bad address at start-up
	}
	setDefault(name+"_HOST", host)
	setDefault(name+"_PORT", port)
}

// prepareDataDir creates the data directory, owner-only, when the server is
// started: the admin socket lives there, and Caddy binds it before any
// module (the feedback store) could create the directory. `run` then
// locks it (lockDataDir); `start` does not, since the process it starts
// runs `run` and takes the lock itself.
func prepareDataDir(args []string) error {
	if len(args) < 2 || (args[1] != "run" && args[1] != "start") {
		return nil
	}
	dir := os.Getenv("WIKIGATE_DATA_DIR")
	_ = os.MkdirAll(dir, 0o700) // Caddy reports what still fails
	if args[1] != "run" {
		return nil
	}
	f, err := lockDataDir(dir)
	if err != nil {
		return err
	}
	dataDirLock = f
	return nil
}
