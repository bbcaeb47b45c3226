// The official meilisearch JS client against wikigate's Meilisearch-compatible
// routes (run by integration/people_search_client_test.go, which starts the gate
// and sets WIKIGATE_MEILI_HOST). The client is used unchanged and without an
// API key: the gate holds the backend key and searches through the policy.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Meilisearch, MeilisearchApiError } from "meilisearch";

const host = process.env.WIKIGATE_MEILI_HOST;
assert.ok(host, "WIKIGATE_MEILI_HOST is not set");
const client = new Meilisearch({ host });
const publicProjects = new Set(["kunora-kgent", "kunora-gateway", "kunora-ops"]);

// inScope asserts each hit is a public, approved page of the main version.
function inScope(hits) {
  for (const hit of hits) {
    assert.equal(hit.status, "approved", JSON.stringify(hit));
    assert.equal(hit.version, "main", JSON.stringify(hit));
    assert.ok(publicProjects.has(hit.project), JSON.stringify(hit));
    assert.equal(hit.pathPrefixes, undefined);
  }
}

test("index.search returns in-scope hits with _formatted", async () => {
  const res = await client.index("wiki_pages").search("memory", {
    limit: 5,
    attributesToHighlight: ["title"],
    attributesToCrop: ["content"],
    cropLength: 12,
    highlightPreTag: "<mark>",
    highlightPostTag: "</mark>",
  });
  assert.ok(res.hits.length > 0, "no hits");
  inScope(res.hits);
  assert.equal(res.query, "memory");
  assert.equal(res.limit, 5);
  assert.equal(res.offset, 0);
  assert.equal(typeof res.estimatedTotalHits, "number");
  assert.equal(typeof res.processingTimeMs, "number");
  assert.equal(typeof res.hits[0]._formatted.title, "string");
});

test("a filter that tries to widen (status = working) finds nothing", async () => {
  const res = await client.index("wiki_pages").search("memory", { filter: "status = working" });
  assert.equal(res.hits.length, 0);
  const arr = await client.index("wiki_pages").search("memory", { filter: [["status = working", "status = approved"]] });
  inScope(arr.hits);
});

test("page-based search", async () => {
  const res = await client.index("wiki_pages").search("memory", { hitsPerPage: 2, page: 1 });
  inScope(res.hits);
  assert.ok(res.hits.length <= 2);
  assert.equal(res.page, 1);
  assert.equal(res.hitsPerPage, 2);
  assert.equal(typeof res.totalHits, "number");
});

test("multiSearch returns one in-scope result per query", async () => {
  const { results } = await client.multiSearch({
    queries: [
      { indexUid: "wiki_pages", q: "memory", limit: 3 },
      { indexUid: "wiki_pages", q: "memory", filter: "status = working" },
    ],
  });
  assert.equal(results.length, 2);
  assert.equal(results[0].indexUid, "wiki_pages");
  assert.ok(results[0].hits.length > 0);
  inScope(results[0].hits);
  assert.equal(results[1].hits.length, 0);
});

test("another index is index_not_found, as a MeilisearchApiError", async () => {
  await assert.rejects(client.index("secret_pages").search("memory"), (err) => {
    assert.ok(err instanceof MeilisearchApiError, String(err));
    assert.equal(err.response.status, 404);
    assert.equal(err.cause.code, "index_not_found");
    assert.equal(err.cause.type, "invalid_request");
    return true;
  });
});

test("an unsupported parameter is refused naming the supported ones", async () => {
  await assert.rejects(client.index("wiki_pages").search("memory", { distinct: "title" }), (err) => {
    assert.ok(err instanceof MeilisearchApiError, String(err));
    assert.equal(err.cause.code, "bad_request");
    assert.match(err.message, /supported search parameters: q, limit/);
    return true;
  });
});
