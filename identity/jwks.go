package identity

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/MicahParks/keyfunc/v3"
	"go.uber.org/zap"
	"golang.org/x/time/rate"
)

// JWKS timing. A token naming an unknown kid may trigger a refresh at most
// once per jwksUnknownKIDInterval, so random kids cannot turn the gate into
// a request amplifier against the identity provider. A refresh that cannot
// start within jwksRefreshWait (the limiter's wait and the fetch share this
// budget in jwkset) fails fast as "unknown key id".
const (
	jwksHTTPTimeout        = 10 * time.Second
	jwksRefreshInterval    = 15 * time.Minute
	jwksUnknownKIDInterval = time.Minute
	jwksRefreshWait        = 5 * time.Second
	jwksInitRetryInterval  = 10 * time.Second
)

// errKeysUnavailable: the JWKS has not been fetched (yet), or the caller
// stopped waiting for the fetch.
var errKeysUnavailable = errors.New("signing keys unavailable")

// lazyJWKS builds the keyfunc JWKS client on first use, because building it
// fetches the set and New must stay offline for `caddy validate`.
//
// The first fetch runs in its own goroutine, at most one at a time, and
// never under mu: callers wait for it only as long as their request context
// allows, so a slow identity provider cannot pile up requests behind a lock.
type lazyJWKS struct {
	url    string
	client *http.Client
	logger *zap.Logger
	ctx    context.Context // cancelled by Close; ends the fetch and the refresh goroutine

	mu          sync.Mutex
	storage     jwkset.Storage
	fetching    chan struct{}      // closed when the fetch in flight ends; nil when none is
	stop        context.CancelFunc // ends the refresh goroutine of storage
	lastFailure time.Time          // wall clock, limits retries after a failed first fetch
}

func newLazyJWKS(ctx context.Context, url string, logger *zap.Logger) *lazyJWKS {
	return &lazyJWKS{
		url:    url,
		client: &http.Client{Timeout: jwksHTTPTimeout, CheckRedirect: refuseInsecureRedirect},
		logger: logger,
		ctx:    ctx,
	}
}

// refuseInsecureRedirect keeps an https JWKS URL from being downgraded to
// plain http by a redirect, which would let anyone on the path serve keys.
func refuseInsecureRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	if !secureJWKSURL(req.URL) {
		return errors.New("jwks redirect to a non-https url refused")
	}
	return nil
}

// keys returns the JWKS storage, fetching the set on the first call. Callers
// share one fetch in flight and give up when ctx ends. After a failed fetch
// a new one starts at most every jwksInitRetryInterval; calls in between
// fail fast.
func (j *lazyJWKS) keys(ctx context.Context) (jwkset.Storage, error) {
	storage, done, err := j.fetchInFlight()
	if storage != nil || err != nil {
		return storage, err
	}
	select {
	case <-done:
	case <-ctx.Done():
		return nil, errKeysUnavailable
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.storage == nil {
		return nil, errKeysUnavailable
	}
	return j.storage, nil
}

// fetchInFlight returns the storage when it is ready, else the done channel
// of the fetch to wait for, starting one when none runs and the retry
// back-off allows.
func (j *lazyJWKS) fetchInFlight() (jwkset.Storage, <-chan struct{}, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	switch {
	case j.storage != nil:
		return j.storage, nil, nil
	case j.fetching != nil:
		return nil, j.fetching, nil
	case !j.lastFailure.IsZero() && time.Since(j.lastFailure) < jwksInitRetryInterval:
		return nil, nil, errKeysUnavailable
	}
	j.fetching = make(chan struct{})
	go j.fetch(j.fetching)
	return nil, j.fetching, nil
}

// fetch builds the client outside mu, records the outcome, then wakes the
// waiters. It runs under j.ctx, not a request's context, so a caller that
// gives up does not cancel the fetch the others wait for.
func (j *lazyJWKS) fetch(done chan struct{}) {
	storage, stop, err := j.build()
	j.mu.Lock()
	if err != nil {
		j.lastFailure = time.Now()
		j.logger.Warn("fetching jwks failed", zap.String("jwks_url", j.url), zap.Error(err))
	} else {
		j.storage, j.stop = storage, stop
	}
	j.fetching = nil
	j.mu.Unlock()
	close(done)
}

// build creates the keyfunc client. Its refresh goroutine lives in a child
// context that is cancelled again when the first fetch fails, so failed
// attempts leave nothing running.
func (j *lazyJWKS) build() (jwkset.Storage, context.CancelFunc, error) {
	ctx, cancel := context.WithCancel(j.ctx)
	failFirst := false
	kf, err := keyfunc.NewDefaultOverrideCtx(ctx, []string{j.url}, keyfunc.Override{
		Client:                    j.client,
		HTTPTimeout:               jwksHTTPTimeout,
		NoErrorReturnFirstHTTPReq: &failFirst,
		RateLimitWaitMax:          jwksRefreshWait,
		RefreshInterval:           jwksRefreshInterval,
		RefreshUnknownKID:         rate.NewLimiter(rate.Every(jwksUnknownKIDInterval), 1),
		RefreshErrorHandlerFunc:   j.refreshErrorHandler,
	})
	if err != nil {
		cancel()
		return nil, nil, err
	}
	return kf.Storage(), cancel, nil // cancel also runs with j.ctx on Close
}

func (j *lazyJWKS) refreshErrorHandler(u string) func(context.Context, error) {
	return func(_ context.Context, err error) {
		j.logger.Warn("refreshing jwks failed", zap.String("jwks_url", u), zap.Error(err))
	}
}

// key returns the key for kid, refreshing the set (rate-limited) when the kid
// is unknown. Any failure to find it reads as errUnknownKeyID.
func (j *lazyJWKS) key(ctx context.Context, kid string) (staticKey, error) {
	storage, err := j.keys(ctx)
	if err != nil {
		return staticKey{}, err
	}
	jwk, err := storage.KeyRead(ctx, kid)
	if err != nil {
		return staticKey{}, errUnknownKeyID
	}
	k, ok := jwkKey(jwk)
	if !ok {
		return staticKey{}, errUnknownKeyID
	}
	return k, nil
}

// all returns every usable key in the set, for tokens without kid.
func (j *lazyJWKS) all(ctx context.Context) ([]staticKey, error) {
	storage, err := j.keys(ctx)
	if err != nil {
		return nil, err
	}
	jwks, err := storage.KeyReadAll(ctx)
	if err != nil {
		return nil, errKeysUnavailable
	}
	keys := make([]staticKey, 0, len(jwks))
	for _, jwk := range jwks {
		if k, ok := jwkKey(jwk); ok {
			keys = append(keys, k)
		}
	}
	return keys, nil
}

// jwkKey extracts the public key of a JWK and the algorithms it may verify:
// those of its key type, narrowed to the JWK's own "alg" when it names one.
// Symmetric ("oct") keys are dropped: a JWKS is published, so anyone who can
// read it could sign tokens with them.
func jwkKey(jwk jwkset.JWK) (staticKey, bool) {
	if _, symmetric := jwk.Key().([]byte); symmetric {
		return staticKey{}, false
	}
	key := publicOf(jwk.Key())
	algs := algorithmsFor(key)
	if pinned := jwk.Marshal().ALG.String(); pinned != "" {
		algs = intersect(algs, []string{pinned})
	}
	return staticKey{key: key, algorithms: algs}, len(algs) > 0
}

// jwksProbeMaxBytes caps a JWKS read by the health probe; real sets are a
// few KiB.
const jwksProbeMaxBytes = 1 << 20

// errNoUsableKeys: the JWKS answered, but with no key the gate can verify
// tokens with (an empty set, or only symmetric keys).
var errNoUsableKeys = errors.New("jwks has no usable key")

// JWKSChecks returns a health check for each configured JWKS source, by
// verifier ("agent", "human"). A JWKS outage otherwise shows only as 401s
// to callers, so /healthz reports it as a dependency.
func (a *Authenticator) JWKSChecks() map[string]func(context.Context) error {
	out := map[string]func(context.Context) error{}
	for name, v := range map[string]*verifier{"agent": a.agents, "human": a.humans} {
		if v != nil && v.jwks != nil {
			out[name] = v.jwks.probe
		}
	}
	return out
}

// probe fetches the set now, with the verifier's own HTTP client (timeouts,
// no downgrade on redirect), and checks that it holds a usable key. It
// leaves the verifier's cached keys alone: a probe tells whether the source
// serves keys, it does not change which keys verify tokens.
func (j *lazyJWKS) probe(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, j.url, nil)
	if err != nil {
		return fmt.Errorf("building jwks request: %w", err)
	}
	resp, err := j.client.Do(req)
	if err != nil {
		return fmt.Errorf("fetching jwks: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("fetching jwks: http %d", resp.StatusCode)
	}
	var set jwkset.JWKSMarshal
	if err := json.NewDecoder(io.LimitReader(resp.Body, jwksProbeMaxBytes)).Decode(&set); err != nil {
		return fmt.Errorf("decoding jwks: %w", err)
	}
	jwks, err := set.JWKSlice()
	if err != nil {
		return fmt.Errorf("reading jwks keys: %w", err)
	}
	for _, jwk := range jwks {
		if _, ok := jwkKey(jwk); ok {
			return nil
		}
	}
	return errNoUsableKeys
}
