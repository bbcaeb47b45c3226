// A docs site on another origin than the gate, in headless Chromium (run by
// integration/widget_browser_test.go): its search box is
// @meilisearch/instant-meilisearch (the InstantSearch adapter, pinned by this
// folder's lockfile, unchanged) pointed at the gate's Meilisearch-compatible
// routes without a key, and it embeds <wikigate-ask> from the gate as the
// README's snippet does. Env: WIKIGATE_URL (the gate), WIKIGATE_DOCS_PORT
// (the docs site this test serves on 127.0.0.1; the gate's cors block
// allows its origin), CHROMIUM_PATH, WIKIGATE_PAGES (the wiki's pages:
// what hits and citations must be).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { readFileSync } from "node:fs";
import puppeteer from "puppeteer-core";
import { pageAt, pagesWith } from "./pages.mjs";

const gate = process.env.WIKIGATE_URL;
const docsOrigin = `http://127.0.0.1:${process.env.WIKIGATE_DOCS_PORT}`;
const index = "wiki_pages";

// The docs site: one page that loads the adapter as its published ES
// modules (an import map resolves its one bare import, "meilisearch"), and
// the widget from the gate.
const npm = {
  "/npm/instant-meilisearch.js": "node_modules/@meilisearch/instant-meilisearch/dist/index.js",
  "/npm/meilisearch.js": "node_modules/meilisearch/dist/index.js",
};
const searchPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Docs search</title><link rel="icon" href="data:,">
<script type="importmap">{"imports": {"meilisearch": "/npm/meilisearch.js"}}</script>
<script type="module">
  import { instantMeiliSearch } from "/npm/instant-meilisearch.js";
  window.searchClient = instantMeiliSearch(${JSON.stringify(gate + "/answer/meilisearch")}, "").searchClient;
</script>
<script type="module" src="${gate}/answer/widget/v1/wikigate-ask.js"></script>
</head><body><h1>kunora-kgent</h1>
<wikigate-ask gate="${gate}" page="/system/components/kunora-kgent/"></wikigate-ask>
</body></html>`;

function serveDocs(req, res) {
  const path = new URL(req.url, docsOrigin).pathname;
  if (path === "/") {
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }).end(searchPage);
  } else if (npm[path]) {
    const file = new URL(npm[path], import.meta.url);
    res.writeHead(200, { "Content-Type": "text/javascript; charset=utf-8" }).end(readFileSync(file));
  } else {
    res.writeHead(404).end();
  }
}

let browser, page, docs;
const searches = []; // the gate's answers to the page's search calls
const calls = []; // every answer of the gate to the page

before(async () => {
  docs = createServer(serveDocs);
  await new Promise((resolve) => docs.listen(Number(process.env.WIKIGATE_DOCS_PORT), "127.0.0.1", resolve));
  browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM_PATH,
    headless: true,
    args: ["--no-sandbox", "--disable-dev-shm-usage"], // CI runs as root
  });
  page = await browser.newPage();
  page.on("console", (m) => m.type() === "error" && console.log(`page console: ${m.text()}`));
  page.on("response", (r) => {
    if (!r.url().startsWith(gate)) return;
    calls.push(r);
    if (new URL(r.url()).pathname.startsWith("/answer/meilisearch/")) searches.push(r);
  });
  const res = await page.goto(`${docsOrigin}/`, { waitUntil: "networkidle0" });
  assert.equal(res.status(), 200);
  await page.waitForFunction(() => window.searchClient, { timeout: 10000 });
});

after(async () => {
  await browser?.close();
  docs?.close();
});

// search runs InstantSearch's request through the adapter, in the page.
function search(params) {
  return page.evaluate(
    async (indexName, params) => (await window.searchClient.search([{ indexName, params }])).results[0],
    index, params,
  );
}

test("a search from the docs site's origin finds only public approved pages", async () => {
  const r = await search({
    query: "agent memory", hitsPerPage: 8, page: 0, facets: ["status", "project"],
    attributesToSnippet: ["content:20"], highlightPreTag: "<mark>", highlightPostTag: "</mark>",
  });
  assert.ok(r.hits.length > 0 && r.nbHits >= r.hits.length, JSON.stringify(r).slice(0, 500));
  for (const h of r.hits) {
    assert.equal(pageAt(h.url).status, "approved", h.url);
    assert.equal(h.status, "approved", h.url);
  }
  assert.deepEqual(Object.keys(r.facets.status), ["approved"], JSON.stringify(r.facets));
  assert.ok(r.hits.some((h) => /<mark>/i.test(h._highlightResult.title.value)), "titles are highlighted");
  assert.ok(r.hits.every((h) => typeof h._snippetResult.content.value === "string"), "content is snippeted");
  console.log(`instant-meilisearch: ${r.hits.length} of ${r.nbHits} hits, all approved`);

  // The adapter sends JSON and X-Meilisearch-Client, so the browser asks
  // first (a preflight, 204), then posts; the gate's cors block lets the
  // docs origin read both.
  const preflights = searches.filter((r) => r.request().method() === "OPTIONS");
  const calls = searches.filter((r) => r.request().method() === "POST");
  assert.ok(preflights.length > 0 && calls.length > 0, searches.map((r) => `${r.request().method()} ${r.status()}`).join(", "));
  for (const res of preflights) assert.equal(res.status(), 204, res.url());
  for (const res of calls) {
    assert.equal(res.status(), 200, res.url());
    assert.equal(res.request().headers().authorization, undefined, "the page holds no key");
  }
  for (const res of searches) {
    assert.equal(res.headers()["access-control-allow-origin"], docsOrigin, "the gate's cors block let the docs site read it");
  }
});

test("working pages stay out, even when the search box asks for them", async () => {
  const working = pagesWith({ status: "working", version: "main" }).find((p) => p.url.endsWith("/agent-memory-v2"));
  assert.ok(working, "the sample wiki has a working draft to look for");
  const plain = await search({ query: working.title, hitsPerPage: 20, page: 0 });
  assert.ok(plain.hits.every((h) => pageAt(h.url).status === "approved"), JSON.stringify(plain.hits.map((h) => h.url)));
  const widened = await search({ query: working.title, hitsPerPage: 20, page: 0, facetFilters: [["status:working"]] });
  assert.equal(widened.hits.length, 0, JSON.stringify(widened.hits.map((h) => h.url)));
  assert.equal(widened.nbHits, 0);
});

test("a refinement list: the refined search, and InstantSearch's count-only query for the facet's other values", async () => {
  const [refined, counts] = await page.evaluate(
    async (indexName) => (await window.searchClient.search([
      { indexName, params: { query: "agent memory", hitsPerPage: 5, page: 0, facets: ["project", "status"], facetFilters: [["project:kunora-kgent"]] } },
      // what InstantSearch adds for a disjunctive facet with a refinement
      { indexName, params: { query: "agent memory", hitsPerPage: 0, page: 0, facets: "project", attributesToRetrieve: [],
        attributesToHighlight: [], attributesToSnippet: [], analytics: false, clickAnalytics: false } },
    ])).results,
    index,
  );
  assert.ok(refined.hits.length > 0);
  for (const h of refined.hits) assert.deepEqual([h.project, pageAt(h.url).status], ["kunora-kgent", "approved"], h.url);
  assert.deepEqual(Object.keys(refined.facets.status), ["approved"]);
  assert.equal(counts.hits.length, 0, "a count-only query shows no hits");
  assert.equal(counts.facets.project["kunora-kgent"], refined.nbHits, JSON.stringify(counts.facets));
  for (const project of Object.keys(counts.facets.project)) {
    assert.ok(pagesWith({ project, status: "approved" }).length > 0, `facet value ${project}`);
  }
  assert.ok(counts.nbHits >= refined.nbHits);
});

test("the widget embedded on the docs site streams an answer from the gate across origins", async () => {
  await page.waitForFunction(() => customElements.get("wikigate-ask") && document.querySelector("wikigate-ask").shadowRoot);
  const W = "wikigate-ask >>> ";
  await (await page.$(`${W}#wg-question`)).click();
  await page.keyboard.type("How do I configure agent memory?");
  await page.keyboard.press("Enter");
  await page.waitForFunction(
    () => document.querySelector("wikigate-ask").shadowRoot.querySelector(".turn .citations a"), { timeout: 30000 },
  );
  const cites = await page.$$eval(`${W}.turn .citations li a`, (as) => as.map((a) => a.href));
  assert.ok(cites.length > 0);
  for (const c of cites) {
    assert.ok(c.startsWith(`${docsOrigin}/`), `citation ${c} links to the docs site`);
    assert.equal(pageAt(c).status, "approved", c);
  }
  // The session and its streamed turn crossed origins: each POST was
  // preflighted (JSON, X-Session-Token) and readable by the docs origin.
  const seen = (method, re) => calls.filter((r) => r.request().method() === method && re.test(new URL(r.url()).pathname));
  const turn = /^\/answer\/sessions\/[^/]+\/turns$/;
  assert.equal(seen("POST", /^\/answer\/sessions$/).length, 1);
  assert.equal(seen("POST", turn).length, 1);
  assert.ok(seen("OPTIONS", turn).length > 0, "the turn was preflighted");
  for (const r of [...seen("POST", /^\/answer\/sessions/), ...seen("OPTIONS", turn)]) {
    assert.ok(r.status() === 200 || r.status() === 204, `${r.request().method()} ${r.url()}: ${r.status()}`);
    assert.equal(r.headers()["access-control-allow-origin"], docsOrigin, r.url());
  }
  assert.match(seen("POST", turn)[0].headers()["content-type"], /^text\/event-stream/);
});
