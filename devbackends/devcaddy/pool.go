package devcaddy

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"

	"github.com/caddyserver/caddy/v2"
)

// servers holds the development backends across config reloads. Caddy
// provisions the new configuration before it cleans up the old one, so a
// server kept here under its key outlives `wikigate reload`: what
// `wikigate ingest` loaded stays loaded, as it would in a real
// Meilisearch or RAGFlow, instead of every reload starting the stand-ins
// empty again. The key is the kind, the credential and the corpus: a
// reload that changes any of them gets a fresh server.
var servers = caddy.NewUsagePool()

// pooledServer is a development server in the pool; it holds nothing to
// release (its state is memory).
type pooledServer struct{ http.Handler }

func (pooledServer) Destruct() error { return nil }

// sharedServer returns the pooled server for kind, credential and
// corpus, building it on first use, and the key to release it with.
func sharedServer(kind, credential string, empty bool, build func() (http.Handler, error)) (http.Handler, string, error) {
	key := poolKey(kind, credential, empty)
	v, _, err := servers.LoadOrNew(key, func() (caddy.Destructor, error) {
		h, err := build()
		if err != nil {
			return nil, err
		}
		return pooledServer{h}, nil
	})
	if err != nil {
		return nil, "", err
	}
	return v.(pooledServer).Handler, key, nil
}

// poolKey names a server without holding its credential in clear.
func poolKey(kind, credential string, empty bool) string {
	sum := sha256.Sum256([]byte(credential))
	corpus := "sample"
	if empty {
		corpus = "empty"
	}
	return kind + "|" + corpus + "|" + hex.EncodeToString(sum[:8])
}

// release drops one use of the pooled server under key (Cleanup).
func release(key string) error {
	if key == "" {
		return nil
	}
	_, err := servers.Delete(key)
	return err
}
