package identity

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"
	"sort"
)

// Algorithm families by key type. A key only ever verifies its own family,
// which closes the classic confusion of an HS256 token "signed" with an RSA
// public key.
var (
	hmacAlgorithms       = []string{"HS256", "HS384", "HS512"}
	rsaAlgorithms        = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512"}
	ed25519Algorithms    = []string{"EdDSA"}
	asymmetricAlgorithms = slices.Concat(rsaAlgorithms, []string{"ES256", "ES384", "ES512"}, ed25519Algorithms)
	knownAlgorithms      = slices.Concat(hmacAlgorithms, asymmetricAlgorithms)
)

const (
	minHMACSecretBytes = 32   // RFC 7518 §3.2: at least the hash size of HS256
	minRSABits         = 2048 // smaller RSA keys are forgeable in practice
)

// algorithmsFor returns the algorithms key can verify; nil for a key type
// this package does not accept.
func algorithmsFor(key any) []string {
	switch k := key.(type) {
	case []byte:
		return hmacAlgorithms
	case *rsa.PublicKey:
		return rsaAlgorithms
	case ed25519.PublicKey:
		return ed25519Algorithms
	case *ecdsa.PublicKey:
		switch k.Curve {
		case elliptic.P256():
			return []string{"ES256"}
		case elliptic.P384():
			return []string{"ES384"}
		case elliptic.P521():
			return []string{"ES512"}
		}
	}
	return nil
}

// publicOf turns a private key (as a JWKS may carry) into its public half so
// verification never holds more than it needs.
func publicOf(key any) any {
	if _, isHMAC := key.([]byte); isHMAC {
		return key
	}
	if pk, ok := key.(interface{ Public() crypto.PublicKey }); ok {
		return pk.Public()
	}
	return key
}

// staticKey is one configured key with the algorithms it may verify.
type staticKey struct {
	key        any
	algorithms []string
}

// parseStaticKeys reads HMAC secrets and PEM public keys into kid → key.
func parseStaticKeys(c JWTConfig) (map[string]staticKey, error) {
	keys := make(map[string]staticKey, len(c.HMACSecrets)+len(c.PublicKeysPEM))
	for kid, secret := range c.HMACSecrets {
		if len(secret) < minHMACSecretBytes {
			return nil, fmt.Errorf("hmac secret for kid %q is shorter than %d bytes", kid, minHMACSecretBytes)
		}
		keys[kid] = staticKey{key: slices.Clone(secret), algorithms: hmacAlgorithms}
	}
	for kid, data := range c.PublicKeysPEM {
		if _, dup := keys[kid]; dup {
			return nil, fmt.Errorf("kid %q is configured both as hmac secret and as public key", kid)
		}
		key, err := parsePublicKeyPEM(data)
		if err != nil {
			return nil, fmt.Errorf("public key for kid %q: %w", kid, err)
		}
		keys[kid] = staticKey{key: key, algorithms: algorithmsFor(key)}
	}
	return keys, nil
}

// parsePublicKeyPEM accepts PKIX "PUBLIC KEY", PKCS#1 "RSA PUBLIC KEY" and
// "CERTIFICATE" blocks holding an RSA, ECDSA or Ed25519 key.
func parsePublicKeyPEM(data []byte) (any, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("no pem block found")
	}
	var key any
	var err error
	switch block.Type {
	case "PUBLIC KEY":
		key, err = x509.ParsePKIXPublicKey(block.Bytes)
	case "RSA PUBLIC KEY":
		key, err = x509.ParsePKCS1PublicKey(block.Bytes)
	case "CERTIFICATE":
		var cert *x509.Certificate
		if cert, err = x509.ParseCertificate(block.Bytes); err == nil {
			key = cert.PublicKey
		}
	default:
		return nil, fmt.Errorf("pem block %q is not a public key or certificate", block.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("parsing pem: %w", err)
	}
	if algorithmsFor(key) == nil {
		return nil, fmt.Errorf("unsupported key type %T", key)
	}
	if rk, ok := key.(*rsa.PublicKey); ok && rk.N.BitLen() < minRSABits {
		return nil, fmt.Errorf("rsa key has %d bits, at least %d required", rk.N.BitLen(), minRSABits)
	}
	return key, nil
}

// allowedAlgorithms resolves the allow-list and narrows each static key to
// it. An explicit algorithm no configured key can verify is a config error,
// since such a token could never pass.
func allowedAlgorithms(c JWTConfig, keys map[string]staticKey) ([]string, error) {
	verifiable := map[string]bool{}
	for _, k := range keys {
		for _, alg := range k.algorithms {
			verifiable[alg] = true
		}
	}
	if c.JWKSURL != "" {
		for _, alg := range asymmetricAlgorithms {
			verifiable[alg] = true
		}
	}
	if len(c.Algorithms) == 0 {
		return sortedKeys(verifiable), nil
	}
	var allowed []string
	for _, alg := range c.Algorithms {
		switch {
		case !slices.Contains(knownAlgorithms, alg):
			return nil, fmt.Errorf("algorithm %q is not supported", alg)
		case !verifiable[alg]:
			return nil, fmt.Errorf("algorithm %q cannot be verified by any configured key", alg)
		}
		if !slices.Contains(allowed, alg) {
			allowed = append(allowed, alg)
		}
	}
	for kid, k := range keys {
		k.algorithms = intersect(k.algorithms, allowed)
		keys[kid] = k
	}
	return allowed, nil
}

func intersect(a, b []string) []string {
	var out []string
	for _, s := range a {
		if slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}

func sortedKeys(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
