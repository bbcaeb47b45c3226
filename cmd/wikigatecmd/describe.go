package wikigatecmd

// BinaryName is what the built binary calls itself in help and usage
// lines: without it Caddy's command tree prints "Usage: caddy policy …",
// a command that does not exist on an operator's machine.
const BinaryName = "wikigate"

// LongDescription replaces Caddy's own on `wikigate --help`: an operator
// reading it wants the gate's commands and where its docs are, then the
// fact that every Caddy command is here too.
const LongDescription = `wikigate is a policy gate in front of RAGFlow and Meilisearch: Caddy v2
with the wikigate module, its development backends and its commands.

Run the gate with the repository's Caddyfile:

	$ wikigate run --config Caddyfile --adapter caddyfile

The gate's own commands:

	token    signs a development JWT for an agent or a person
	key      creates, lists and revokes hashed API keys
	ingest   loads a docs tree (Docusaurus, MkDocs, Mintlify, Markdown)
	         into Meilisearch and RAGFlow
	project  proposes the policy-data change a docs tree's projects need
	doctor   checks that the configured backends hold what the gate needs
	policy   builds bundles, tests, replays recorded decisions, explains one
	eval     measures a running gate's answers against an evaluation set
	audit    verifies the hash chain of audit logs
	version  prints the gate's version and Caddy's

Caddy's commands (run, reload, adapt, validate, fmt, ...) work as in
Caddy: https://caddyserver.com/docs/command-line. Its upgrade,
add-package and remove-package are refused: they would replace this
binary with a stock Caddy without the gate. The gate's configuration,
routes and operations are in the project's README.md and docs/.
`
