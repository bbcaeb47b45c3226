// The official meilisearch JS client's index.searchForFacetValues against the
// gate's facet-search route (run by
// integration/people_facet_search_client_test.go, which starts the gate and
// sets WIKIGATE_MEILI_HOST): only values of public approved pages, a filter
// that tries to widen finds nothing, and Meilisearch's error codes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Meilisearch, MeilisearchApiError } from "meilisearch";

const host = process.env.WIKIGATE_MEILI_HOST;
assert.ok(host, "WIKIGATE_MEILI_HOST is not set");
const index = new Meilisearch({ host }).index("wiki_pages");

test("index.searchForFacetValues answers in-scope values only", async () => {
  const res = await index.searchForFacetValues({ facetName: "status", facetQuery: "a", q: "memory" });
  assert.equal(res.facetQuery, "a");
  assert.equal(typeof res.processingTimeMs, "number");
  assert.deepEqual(res.facetHits.map((h) => h.value), ["approved"]);
  const widened = await index.searchForFacetValues({ facetName: "status", q: "memory", filter: "status = working" });
  assert.deepEqual(widened.facetHits, []);
  const none = await index.searchForFacetValues({ facetName: "status", facetQuery: "w", q: "memory" });
  assert.deepEqual(none.facetHits, []);
});

test("a facet the gate does not offer is Meilisearch's error", async () => {
  await assert.rejects(index.searchForFacetValues({ facetName: "path" }), (err) => {
    assert.ok(err instanceof MeilisearchApiError, String(err));
    assert.equal(err.cause.code, "invalid_facet_search_facet_name");
    assert.equal(err.response.status, 400);
    return true;
  });
});
