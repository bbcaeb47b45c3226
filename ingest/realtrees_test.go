package ingest_test

import "path/filepath"

// realTree is one of the public docs trees in testdata/trees (see its
// README for where each came from), with what the tests ask of it.
type realTree struct {
	name, project string
	// pages is the number of pages the tree holds.
	pages int
	// edits are two page files (relative to the tree) a test edits, and
	// the page labels the reports then name.
	edits, edited [2]string
	// questions are asked of the loaded index; the page path is the one
	// that must rank first. Written from the pages' text.
	questions []question
}

type question struct{ q, page string }

func (r realTree) dir() string     { return filepath.Join("testdata", "trees", r.name) }
func (r realTree) mapping() string { return filepath.Join("testdata", "trees", r.name+".map.yaml") }

// realTrees: Prettier's docs (Docusaurus, MDX in .md: Tabs, admonitions,
// HTML) and HTTPX's (MkDocs: admonitions, mkdocstrings, nav titles).
var realTrees = []realTree{
	{
		name: "prettier", project: "prettier", pages: 24,
		edits:  [2]string{"docs/ci.md", "docs/vim.md"},
		edited: [2]string{"publish/prettier/ci.md (main)", "publish/prettier/vim.md (main)"},
		questions: []question{
			{"which files does .prettierignore keep Prettier from formatting", "publish/prettier/ignore.md"},
			{"exit codes of prettier --check", "publish/prettier/cli.md"},
			{"Tidelift subscription commercial support", "publish/prettier/for-enterprise.md"},
			{"creating and publishing a shareable config package", "publish/prettier/sharing-configurations.md"},
			{"run Prettier in GitHub Actions", "publish/prettier/ci.md"},
			{"vim-prettier Neoformat ALE coc-prettier", "publish/prettier/vim.md"},
			{"standalone build in the browser with parser plugins", "publish/prettier/browser.md"},
			{"developing a plugin: languages, parsers and printers", "publish/prettier/plugins.md"},
			{"pretty-quick lefthook git-format-staged pre-commit hook options", "publish/prettier/precommit.md"},
			{"JetBrains IDEs WebStorm IntelliJ IDEA PyCharm setup", "publish/prettier/webstorm.md"},
		},
	},
	{
		name: "httpx", project: "httpx", pages: 23,
		edits:  [2]string{"docs/http2.md", "docs/advanced/timeouts.md"},
		edited: [2]string{"publish/httpx/advanced/timeouts.md (main)", "publish/httpx/http2.md (main)"},
		questions: []question{
			{"setting and disabling timeouts, a default timeout on a client", "publish/httpx/advanced/timeouts.md"},
			{"digest authentication and NetRC authentication", "publish/httpx/advanced/authentication.md"},
			{"SOCKS proxy support", "publish/httpx/advanced/proxies.md"},
			{"enabling HTTP/2 and inspecting the HTTP version", "publish/httpx/http2.md"},
			{"event hooks called for every request and response", "publish/httpx/advanced/event-hooks.md"},
			{"client side certificates and SSL_CERT_FILE", "publish/httpx/advanced/ssl.md"},
			{"max_keepalive_connections and max_connections pool limits", "publish/httpx/advanced/resource-limits.md"},
			{"the exception hierarchy and exception classes", "publish/httpx/exceptions.md"},
			{"opening and closing an AsyncClient with async with", "publish/httpx/async.md"},
			{"WSGI and ASGI transports", "publish/httpx/advanced/transports.md"},
		},
	},
}
