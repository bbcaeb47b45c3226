// @meilisearch/instant-meilisearch's searchForFacetValues (what InstantSearch
// calls when a reader types in a searchable refinement list) against the
// gate's POST /answer/meilisearch/indexes/{uid}/facet-search, in Node (no
// browser needed: the adapter builds the same request). Run by
// integration/people_facet_search_client_test.go, which starts the gate and
// sets WIKIGATE_MEILI_HOST.
import { test } from "node:test";
import assert from "node:assert/strict";
import { instantMeiliSearch } from "@meilisearch/instant-meilisearch";

const host = process.env.WIKIGATE_MEILI_HOST;
assert.ok(host, "WIKIGATE_MEILI_HOST is not set");
const { searchClient } = instantMeiliSearch(host, "");

async function facetValues(facetName, facetQuery, query = "memory") {
  const [res] = await searchClient.searchForFacetValues([
    { indexName: "wiki_pages", params: { facetName, facetQuery, query, facets: ["status", "project", "version"] } },
  ]);
  return res.facetHits;
}

test("a refinement list's facet search offers only public approved values", async () => {
  const status = await facetValues("status", "");
  assert.deepEqual(status.map((h) => h.value), ["approved"]);
  assert.ok(status[0].count > 0);
  assert.deepEqual(await facetValues("status", "wor"), [], "a working value is offered");
  const projects = await facetValues("project", "kunora");
  assert.ok(projects.length > 0, "no project values");
  for (const h of projects) {
    assert.ok(["kunora-kgent", "kunora-gateway", "kunora-ops"].includes(h.value), JSON.stringify(h));
    assert.equal(h.highlighted, h.value);
  }
  assert.deepEqual((await facetValues("version", "")).map((h) => h.value), ["main"]);
});
