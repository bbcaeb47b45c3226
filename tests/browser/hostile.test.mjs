// A docs page that embeds <wikigate-ask> WITHOUT any Content-Security-
// Policy, on a gate in front of a RAGFlow and a Meilisearch whose documents
// carry javascript:, data:, protocol-relative and obfuscated urls, and
// <img onerror>/<script> in titles, crops and the answer (run by
// integration/hostile_return_test.go). Every planted script sets a window
// flag named __wg…; a planted url sets __wgURL or leaves for evil.example.
// Env: WIKIGATE_URL (the gate), WIKIGATE_DOCS_PORT (this page, allowed by
// the gate's cors block), CHROMIUM_PATH, WIKIGATE_ARTIFACTS (screenshot),
// WIKIGATE_PLANTED (how many documents each backend returns).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { join } from "node:path";
import puppeteer from "puppeteer-core";

const gate = process.env.WIKIGATE_URL;
const docsOrigin = `http://127.0.0.1:${process.env.WIKIGATE_DOCS_PORT}`;
const planted = Number(process.env.WIKIGATE_PLANTED);
const W = "wikigate-ask >>> ";
const docsTitle = "Docs without a CSP";

// No Content-Security-Policy header, no meta policy: nothing but the widget
// stands between the backends' text and this origin.
const docsPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${docsTitle}</title><link rel="icon" href="data:,">
<script type="module" src="${gate}/answer/widget/v1/wikigate-ask.js"></script>
</head><body><h1>kunora-kgent</h1>
<wikigate-ask gate="${gate}" page="/system/components/kunora-kgent/"></wikigate-ask>
</body></html>`;

let browser, page, docs;
const dialogs = []; // alert(), confirm(): a planted script would open one
const navigations = []; // where clicked links went (answered 204: the page stays)

before(async () => {
  docs = createServer((req, res) => {
    if (new URL(req.url, docsOrigin).pathname === "/") res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }).end(docsPage);
    else res.writeHead(404).end();
  });
  await new Promise((resolve) => docs.listen(Number(process.env.WIKIGATE_DOCS_PORT), "127.0.0.1", resolve));
  browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM_PATH,
    headless: true,
    args: ["--no-sandbox", "--disable-dev-shm-usage"], // CI runs as root
  });
  page = await browser.newPage();
  await page.setViewport({ width: 900, height: 1400 });
  page.on("dialog", (d) => { dialogs.push(d.message()); d.dismiss(); });
  page.on("console", (m) => m.type() === "error" && console.log(`page console: ${m.text()}`));
  const res = await page.goto(`${docsOrigin}/`, { waitUntil: "networkidle0" });
  assert.equal(res.status(), 200);
  await page.waitForFunction(() => customElements.get("wikigate-ask") && document.querySelector("wikigate-ask").shadowRoot);
});

after(async () => {
  await browser?.close();
  docs?.close();
});

// ranScripts lists the __wg… flags set and whether the title changed.
const ranScripts = () => page.evaluate((title) => ({
  flags: Object.keys(window).filter((k) => k.startsWith("__wg")),
  titleChanged: document.title !== title,
}), docsTitle);

async function assertNothingRan(when) {
  assert.deepEqual(await ranScripts(), { flags: [], titleChanged: false }, when);
  assert.deepEqual(dialogs, [], when);
  // No element the backends' markup could have made: the widget builds
  // its DOM itself and sets their text as text.
  const made = await page.$eval("wikigate-ask", (w) => w.shadowRoot.querySelectorAll("img, script, iframe, svg, object, embed").length);
  assert.equal(made, 0, when);
}

// widgetLinks are the widget's links: href as written and as resolved, rel.
const widgetLinks = (sel) => page.$$eval(`${W}${sel}`, (as) =>
  as.map((a) => ({ raw: a.getAttribute("href"), href: a.href, rel: a.rel, text: a.textContent })));

function assertOnlyWebLinks(links) {
  for (const l of links) {
    assert.match(new URL(l.href).protocol, /^https?:$/, JSON.stringify(l));
    assert.ok(!l.href.includes("evil.example"), JSON.stringify(l));
    assert.equal(l.rel, "noopener noreferrer", JSON.stringify(l));
  }
}

test("search: every planted page is listed as text, only the honest one is a link", async () => {
  await (await page.$(`${W}#wg-search`)).click();
  await page.keyboard.type("memory");
  await page.keyboard.press("Enter");
  await page.waitForFunction((n) => document.querySelector("wikigate-ask").shadowRoot.querySelectorAll(".hits li").length === n,
    { timeout: 30000 }, planted);
  const titles = await page.$$eval(`${W}.hits li`, (lis) => lis.map((li) => li.firstChild.textContent));
  for (const t of titles) assert.match(t, /^Memory \d$/, "a title's markup is not shown, nor run");
  const links = await widgetLinks(".hits a");
  assert.equal(links.length, 1, JSON.stringify(links));
  assert.equal(new URL(links[0].href).pathname, "/system/components/kunora-kgent/memory/");
  assertOnlyWebLinks(links);
  await assertNothingRan("after the search");
});

test("an answer: its markup is text, its citations link only to http(s) pages", async () => {
  await (await page.$(`${W}#wg-question`)).click();
  await page.keyboard.type("How does agent memory work?");
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => document.querySelector("wikigate-ask").shadowRoot.querySelector(".turn .citations li"),
    { timeout: 30000 });
  const answer = await page.$eval(`${W}.turn .answer`, (e) => e.textContent);
  assert.match(answer, /<img src=x onerror=window\.__wgAnswer=\d>/, "the model's copied markup is shown as text");
  const cited = await page.$$eval(`${W}.turn .citations li`, (lis) => lis.map((li) => li.textContent));
  assert.ok(cited.length > 1, JSON.stringify(cited));
  for (const t of cited) assert.match(t, /^Memory \d$/);
  const links = await widgetLinks(".turn .citations a");
  assert.ok(links.length <= 1, JSON.stringify(links));
  assertOnlyWebLinks(links);
  await assertNothingRan("after the answer");
  const shot = join(process.env.WIKIGATE_ARTIFACTS, "widget-hostile-backends.png");
  await page.screenshot({ path: shot, fullPage: true });
  console.log(`screenshot of the planted search and answer: ${shot}`);
});

test("clicking every rendered link runs nothing", async () => {
  // A followed link is answered 204 (no content), so the page stays and is
  // checked after each click; a javascript: link would run right here.
  await page.setRequestInterception(true);
  const stay = (req) => {
    if (req.isInterceptResolutionHandled()) return;
    if (req.isNavigationRequest() && req.frame() === page.mainFrame()) {
      navigations.push(req.url());
      req.respond({ status: 204 });
    } else {
      req.continue();
    }
  };
  page.on("request", stay);
  try {
    const count = await page.$eval("wikigate-ask", (w) => w.shadowRoot.querySelectorAll("a").length);
    assert.ok(count > 0);
    for (let i = 0; i < count; i++) {
      const links = await page.$$(`${W}a`);
      await links[i].click();
      await new Promise((r) => setTimeout(r, 100));
      await assertNothingRan(`after clicking link ${i}`);
    }
    for (const u of navigations) assert.match(new URL(u).protocol, /^https?:$/, u);
    const here = new URL(page.url());
    assert.equal(here.origin + here.pathname, `${docsOrigin}/`, "the page never left (an [n] reference only moves to its citation)");
  } finally {
    page.off("request", stay);
    await page.setRequestInterception(false);
  }
});
