package main

import (
	_ "github.com/MicahParks/keyfunc/v3"
	_ "github.com/allegro/bigcache/v3"
	_ "github.com/caddyserver/caddy/v2"
	_ "github.com/caddyserver/caddy/v2/caddytest"
	_ "github.com/caddyserver/caddy/v2/cmd"
	_ "github.com/caddyserver/caddy/v2/modules/standard"
	_ "github.com/fsnotify/fsnotify"
	_ "github.com/golang-jwt/jwt/v5"
	_ "github.com/open-policy-agent/opa/v1/rego"
	_ "github.com/open-policy-agent/opa/v1/tester"
	_ "go.uber.org/zap"
	_ "golang.org/x/text/unicode/norm"
)

func main() {}
