// The sample wiki's pages as the gate's corpus has them (url → status,
// project, version), written by integration/widget_browser_test.go to the
// file WIKIGATE_PAGES names: the oracle for where a link or a hit points.
import { readFileSync } from "node:fs";
import assert from "node:assert/strict";

const pages = new Map(
  JSON.parse(readFileSync(process.env.WIKIGATE_PAGES, "utf8")).map((p) => [p.url, p]),
);

// pageAt returns the wiki page a docs link (absolute, or a site path) names.
export function pageAt(href) {
  const path = new URL(href, "http://docs.invalid").pathname;
  const page = pages.get(path) ?? pages.get(path.replace(/\/$/, ""));
  assert.ok(page, `${href} names no page of the wiki`);
  return page;
}

// statusOfPage is the status (approved, working) of the page href names.
export const statusOfPage = (href) => pageAt(href).status;

// pagesWith lists the wiki's pages whose fields match want.
export const pagesWith = (want) =>
  [...pages.values()].filter((p) => Object.entries(want).every(([k, v]) => p[k] === v));
