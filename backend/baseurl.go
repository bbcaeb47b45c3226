package backend

import (
	"errors"
	"net/url"
)

// BaseURL checks a backend's configured base URL: absolute http(s) with a
// host, and no credentials, query or fragment, which would end up in every
// request and in error messages (the key goes in the Authorization
// header). A path prefix is kept, for a backend behind a proxy.
func BaseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return nil, errors.New("url must be an absolute http(s) url")
	case u.User != nil:
		return nil, errors.New("url must not carry credentials; use the api key")
	case u.RawQuery != "" || u.Fragment != "":
		return nil, errors.New("url must not have a query or fragment")
	}
	return u, nil
}
