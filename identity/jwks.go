package identity

import (
	"context"
	"errors"
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

// errKeysUnavailable: the JWKS could not be fetched for the first time.
var errKeysUnavailable = errors.New("signing keys unavailable")

// lazyJWKS builds the keyfunc JWKS client on first use, because building it
// fetches the set and New must stay offline for `caddy validate`.
type lazyJWKS struct {
	url    string
	client *http.Client
	logger *zap.Logger
	ctx    context.Context // cancelled by Close; ends the refresh goroutine

	mu          sync.Mutex
	storage     jwkset.Storage
	stop        context.CancelFunc // ends the refresh goroutine of storage
	lastAttempt time.Time          // wall clock, limits retries after a failed first fetch
}

func newLazyJWKS(ctx context.Context, url string, logger *zap.Logger) *lazyJWKS {
	return &lazyJWKS{
		url:    url,
		client: &http.Client{Timeout: jwksHTTPTimeout},
		logger: logger,
		ctx:    ctx,
	}
}

// keys returns the JWKS storage, fetching the set on the first call. While
// the first fetch keeps failing it is retried at most every
// jwksInitRetryInterval; calls in between fail fast.
func (j *lazyJWKS) keys() (jwkset.Storage, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.storage != nil {
		return j.storage, nil
	}
	if !j.lastAttempt.IsZero() && time.Since(j.lastAttempt) < jwksInitRetryInterval {
		return nil, errKeysUnavailable
	}
	j.lastAttempt = time.Now()
	storage, err := j.build()
	if err != nil {
		j.logger.Warn("fetching jwks failed", zap.String("jwks_url", j.url), zap.Error(err))
		return nil, errKeysUnavailable
	}
	j.storage = storage
	return storage, nil
}

// build creates the keyfunc client. Its refresh goroutine lives in a child
// context that is cancelled again when the first fetch fails, so failed
// attempts leave nothing running.
func (j *lazyJWKS) build() (jwkset.Storage, error) {
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
		return nil, err
	}
	j.stop = cancel // also cancelled with j.ctx on Close
	return kf.Storage(), nil
}

func (j *lazyJWKS) refreshErrorHandler(u string) func(context.Context, error) {
	return func(_ context.Context, err error) {
		j.logger.Warn("refreshing jwks failed", zap.String("jwks_url", u), zap.Error(err))
	}
}

// key returns the key for kid, refreshing the set (rate-limited) when the kid
// is unknown. Any failure to find it reads as errUnknownKeyID.
func (j *lazyJWKS) key(ctx context.Context, kid string) (staticKey, error) {
	storage, err := j.keys()
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
	storage, err := j.keys()
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
func jwkKey(jwk jwkset.JWK) (staticKey, bool) {
	key := publicOf(jwk.Key())
	algs := algorithmsFor(key)
	if pinned := jwk.Marshal().ALG.String(); pinned != "" {
		algs = intersect(algs, []string{pinned})
	}
	return staticKey{key: key, algorithms: algs}, len(algs) > 0
}
