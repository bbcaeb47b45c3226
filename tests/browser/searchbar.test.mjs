// Docs search bars on a docs site of another origin than the gate, in
// headless Chromium (run by integration/searchbar_browser_test.go), each
// pinned by this folder's lockfile and used unchanged, without a key:
// meilisearch-docsearch (a docs search bar that reads the docs-scraper
// record schema: hierarchy_lvl0…6, content, url, anchor) on the gate's
// docs-scraper view (index uid wiki_pages-docs), the newest official
// meilisearch client (meilisearch-latest, an npm alias of meilisearch) with
// the parameters it sends, and @meilisearch/instant-meilisearch (with the
// meilisearch its peer range names). Env: WIKIGATE_URL, WIKIGATE_DOCS_PORT,
// CHROMIUM_PATH, WIKIGATE_PAGES (the oracle of where a hit points),
// WIKIGATE_ARTIFACTS (the screenshot).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import puppeteer from "puppeteer-core";
import { pageAt, pagesWith } from "./pages.mjs";

const gate = process.env.WIKIGATE_URL;
const host = `${gate}/answer/meilisearch`;
const docsOrigin = `http://127.0.0.1:${process.env.WIKIGATE_DOCS_PORT}`;
const docsIndex = "wiki_pages-docs";

const npm = {
  "/npm/docsearch.js": "node_modules/meilisearch-docsearch/dist/index.bundled.esm.js",
  "/npm/docsearch.css": "node_modules/meilisearch-docsearch/dist/index.css",
  "/npm/meilisearch-latest.js": "node_modules/meilisearch-latest/dist/index.js",
  "/npm/meilisearch.js": "node_modules/meilisearch/dist/index.js",
  "/npm/instant-meilisearch.js": "node_modules/@meilisearch/instant-meilisearch/dist/index.js",
};
const searchPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Docs search bars</title><link rel="icon" href="data:,">
<link rel="stylesheet" href="/npm/docsearch.css">
<script type="importmap">{"imports": {"meilisearch": "/npm/meilisearch.js"}}</script>
<script type="module">
  import { docsearch } from "/npm/docsearch.js";
  import { Meilisearch } from "/npm/meilisearch-latest.js";
  import { instantMeiliSearch } from "/npm/instant-meilisearch.js";
  docsearch({ container: "#docsearch", host: ${JSON.stringify(host)}, apiKey: "", indexUid: ${JSON.stringify(docsIndex)} });
  window.meili = new Meilisearch({ host: ${JSON.stringify(host)} });
  window.searchClient = instantMeiliSearch(${JSON.stringify(host)}, "", {
    meiliSearchParams: { matchingStrategy: "all", showRankingScore: true, rankingScoreThreshold: 0.05 },
  }).searchClient;
</script>
</head><body><h1>Docs</h1><div id="docsearch"></div></body></html>`;

function serveDocs(req, res) {
  const path = new URL(req.url, docsOrigin).pathname;
  if (path === "/") {
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }).end(searchPage);
  } else if (npm[path]) {
    const type = path.endsWith(".css") ? "text/css" : "text/javascript";
    res.writeHead(200, { "Content-Type": `${type}; charset=utf-8` }).end(readFileSync(new URL(npm[path], import.meta.url)));
  } else {
    res.writeHead(404).end();
  }
}

let browser, page, docs;
const searches = []; // the gate's answers to the page's search calls
const pageErrors = [];

before(async () => {
  docs = createServer(serveDocs);
  await new Promise((resolve) => docs.listen(Number(process.env.WIKIGATE_DOCS_PORT), "127.0.0.1", resolve));
  browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM_PATH,
    headless: true,
    args: ["--no-sandbox", "--disable-dev-shm-usage"], // CI runs as root
  });
  page = await browser.newPage();
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  page.on("response", (r) => {
    if (r.url().startsWith(`${host}/`)) searches.push(r);
  });
  const res = await page.goto(`${docsOrigin}/`, { waitUntil: "networkidle0" });
  assert.equal(res.status(), 200);
  await page.waitForFunction(() => window.meili && window.searchClient && document.querySelector(".docsearch-btn"), { timeout: 10000 });
});

after(async () => {
  await browser?.close();
  docs?.close();
});

// assertRecord checks a docs-scraper record points at a public approved
// page of the docs site, at the section its anchor names.
function assertRecord(h) {
  assert.equal(pageAt(h.url).status, "approved", h.url);
  assert.equal(h.status, "approved", h.url);
  assert.ok(typeof h.hierarchy_lvl0 === "string" && typeof h.hierarchy_lvl1 === "string", JSON.stringify(h));
  assert.ok("hierarchy_lvl6" in h && "hierarchy_radio_lvl1" in h && "content" in h, JSON.stringify(h));
  if (h.anchor) assert.ok(h.url.endsWith(`#${h.anchor}`), `${h.url} names its anchor ${h.anchor}`);
}

test("meilisearch-docsearch lists sections of public approved pages, linked with their anchors", async () => {
  await page.click(".docsearch-btn");
  await page.waitForSelector(".docsearch-modal input", { timeout: 5000 });
  await page.type(".docsearch-modal input", "pod memory limits");
  await page.waitForSelector(".docsearch-modal-search-hits-item a", { timeout: 10000 });
  const items = await page.$$eval(".docsearch-modal-search-hits-item a", (as) =>
    as.map((a) => ({
      href: a.getAttribute("href"),
      title: a.querySelector(".docsearch-modal-search-hits-item-title").textContent,
      titleHTML: a.querySelector(".docsearch-modal-search-hits-item-title").innerHTML,
      text: a.querySelector(".docsearch-modal-search-hits-item-text").textContent,
    })),
  );
  const categories = await page.$$eval(".docsearch-modal-search-hits-category", (els) => els.map((e) => e.textContent));
  assert.ok(items.length > 0);
  for (const it of items) assert.equal(pageAt(it.href).status, "approved", it.href);
  const section = items.find((it) => it.href.endsWith("#pod-memory-limits"));
  assert.ok(section, `no hit links to the section: ${JSON.stringify(items)}`);
  assert.equal(section.title, "Deploying kunora-kgent | Pod memory limits");
  assert.match(section.titleHTML, /docsearch-modal-search-hits-item--highlight">Pod</, "the query is highlighted");
  assert.match(section.text, /memory/i);
  assert.ok(categories.includes("kunora-kgent"), `categories ${categories}`);
  await page.screenshot({ path: join(process.env.WIKIGATE_ARTIFACTS, "searchbar-docsearch.png") });
  console.log(`meilisearch-docsearch: ${items.length} hits in ${categories.join(", ")}; ${section.href}`);

  // A working draft's own words find no link to it.
  const working = pagesWith({ status: "working", version: "main" }).find((p) => p.url.endsWith("/agent-memory-v2"));
  assert.ok(working, "the sample wiki has a working draft to look for");
  await page.$eval(".docsearch-modal input", (el) => { el.value = ""; });
  await page.type(".docsearch-modal input", "long-term recall");
  await new Promise((resolve) => setTimeout(resolve, 1000)); // the bar debounces (200 ms)
  const hrefs = await page.$$eval(".docsearch-modal-search-hits-item a", (as) => as.map((a) => a.getAttribute("href")));
  for (const href of hrefs) assert.equal(pageAt(href).status, "approved", href);
  assert.deepEqual(pageErrors, []);
});

test("the newest meilisearch client: the docs view, its parameters, a multi-search, Meilisearch's errors", async () => {
  const r = await page.evaluate(async (index) => {
    const res = await window.meili.index(index).search("agent memory", {
      limit: 5, attributesToHighlight: ["*"], attributesToCrop: ["content"], cropLength: 20,
      highlightPreTag: "<mark>", highlightPostTag: "</mark>",
      showRankingScore: true, matchingStrategy: "last", rankingScoreThreshold: 0, sort: [],
    });
    const multi = await window.meili.multiSearch({ queries: [
      { indexUid: index, q: "pod memory" }, { indexUid: "wiki_pages", q: "pod memory", matchingStrategy: "all" },
    ] });
    const errors = [];
    for (const params of [{ sort: ["title:asc"] }, { matchingStrategy: "most" }, { rankingScoreThreshold: 3 }]) {
      try {
        await window.meili.index(index).search("memory", params);
        errors.push(null);
      } catch (e) {
        errors.push({ name: e.name, code: e.cause?.code, status: e.response?.status, message: e.cause?.message });
      }
    }
    return { res, multi, errors };
  }, docsIndex);
  assert.ok(r.res.hits.length > 0);
  for (const h of r.res.hits) {
    assertRecord(h);
    assert.equal(typeof h._rankingScore, "number");
    assert.ok(!/<(?!\/?mark>)/.test(JSON.stringify(h._formatted)), `only the asked tags: ${JSON.stringify(h._formatted)}`);
  }
  assert.ok(r.res.hits.some((h) => /<mark>/.test(h._formatted.hierarchy_lvl1 + h._formatted.content)), "highlighted");
  const [docsResult, pagesResult] = r.multi.results;
  assert.equal(docsResult.indexUid, docsIndex);
  docsResult.hits.forEach(assertRecord);
  assert.ok(pagesResult.hits.length > 0 && pagesResult.hits.every((h) => pageAt(h.url).status === "approved"));
  assert.deepEqual(r.errors.map((e) => e && [e.name, e.code, e.status]), [
    ["MeilisearchApiError", "invalid_search_sort", 400],
    ["MeilisearchApiError", "invalid_search_matching_strategy", 400],
    ["MeilisearchApiError", "invalid_search_ranking_score_threshold", 400],
  ]);
  console.log(`meilisearch (newest): ${r.res.hits.length} records; refused: ${r.errors.map((e) => e.message).join(" / ")}`);
});

test("instant-meilisearch on the docs view, with meiliSearchParams; a facet filter cannot widen", async () => {
  const search = (params) => page.evaluate(
    async (indexName, params) => (await window.searchClient.search([{ indexName, params }])).results[0],
    docsIndex, params,
  );
  const r = await search({
    query: "agent memory", hitsPerPage: 8, page: 0, facets: ["status"],
    attributesToSnippet: ["content:15"], highlightPreTag: "<mark>", highlightPostTag: "</mark>",
  });
  assert.ok(r.hits.length > 0 && r.nbHits >= r.hits.length, JSON.stringify(r).slice(0, 400));
  for (const h of r.hits) {
    assertRecord(h);
    assert.equal(typeof h._rankingScore, "number");
    assert.equal(typeof h._snippetResult.content.value, "string");
  }
  assert.deepEqual(Object.keys(r.facets.status), ["approved"]);
  assert.ok(r.hits.some((h) => /<mark>/.test(h._highlightResult.hierarchy_lvl1.value)), "titles are highlighted");
  const widened = await search({ query: "long-term recall", hitsPerPage: 20, page: 0, facetFilters: [["status:working"]] });
  assert.equal(widened.hits.length, 0, JSON.stringify(widened.hits.map((h) => h.url)));

  // Every call crossed origins: preflighted, and readable by the docs site.
  assert.ok(searches.some((s) => s.request().method() === "OPTIONS"));
  for (const s of searches) {
    assert.equal(s.headers()["access-control-allow-origin"], docsOrigin, s.url());
    assert.equal(s.request().headers().authorization, undefined, "the page holds no key");
  }
});
