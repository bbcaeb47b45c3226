// Package integration holds the end-to-end tests: a real Caddy, in this
// process, configured from a Caddyfile like the repo's, with the gate and the
// development backends on loopback ports. The tests speak HTTP to it exactly
// as an agent or a front end would.
package integration
