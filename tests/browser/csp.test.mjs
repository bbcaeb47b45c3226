// A docs page that sends the Content-Security-Policy the README recommends
// for the widget (README "Safe URLs and the widget's Content-Security-
// Policy"): scripts only from the gate, connections only to the gate, no
// 'unsafe-inline' anywhere (run by integration/widget_browser_test.go).
// The widget must search, answer and show its own styles with no
// violation reported. Env: WIKIGATE_URL (the gate), WIKIGATE_DOCS_PORT
// (this page, allowed by the gate's cors block), CHROMIUM_PATH,
// WIKIGATE_PAGES (the wiki's pages).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import puppeteer from "puppeteer-core";
import { statusOfPage } from "./pages.mjs";

const gate = process.env.WIKIGATE_URL;
const docsOrigin = `http://127.0.0.1:${process.env.WIKIGATE_DOCS_PORT}`;
const W = "wikigate-ask >>> ";

// The policy of the README, with this test's gate for https://wiki-gate.example.com.
const policy = [
  "default-src 'self'",
  `script-src 'self' ${gate}`,
  `connect-src 'self' ${gate}`,
  "style-src 'self'",
  "img-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

const docsPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Docs with a strict CSP</title>
<script type="module" src="${gate}/answer/widget/v1/wikigate-ask.js"></script>
</head><body><h1>kunora-kgent</h1>
<wikigate-ask gate="${gate}" page="/system/components/kunora-kgent/"></wikigate-ask>
</body></html>`;

let browser, page, docs;
const refused = []; // "Refused to …" console messages

before(async () => {
  docs = createServer((req, res) => {
    if (new URL(req.url, docsOrigin).pathname !== "/") return res.writeHead(404).end();
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8", "Content-Security-Policy": policy }).end(docsPage);
  });
  await new Promise((resolve) => docs.listen(Number(process.env.WIKIGATE_DOCS_PORT), "127.0.0.1", resolve));
  browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM_PATH,
    headless: true,
    args: ["--no-sandbox", "--disable-dev-shm-usage"], // CI runs as root
  });
  page = await browser.newPage();
  page.on("console", (m) => /Refused to|Content Security Policy/i.test(m.text()) && refused.push(m.text()));
  // Violations inside the widget's shadow root are composed events: they
  // reach the document.
  await page.evaluateOnNewDocument(() => {
    window.__violations = [];
    document.addEventListener("securitypolicyviolation",
      (e) => window.__violations.push(`${e.effectiveDirective} ${e.blockedURI}`));
  });
  const res = await page.goto(`${docsOrigin}/`, { waitUntil: "networkidle0" });
  assert.equal(res.status(), 200);
  assert.equal(res.headers()["content-security-policy"], policy);
  await page.waitForFunction(() => customElements.get("wikigate-ask") && document.querySelector("wikigate-ask").shadowRoot);
});

after(async () => {
  await browser?.close();
  docs?.close();
});

async function assertNoViolation() {
  assert.deepEqual(await page.evaluate(() => window.__violations), []);
  assert.deepEqual(refused, []);
}

test("the widget's styles apply without 'unsafe-inline'", async () => {
  const [background, display] = await page.$eval("wikigate-ask", (w) => {
    const b = w.shadowRoot.querySelector("button");
    return [getComputedStyle(b).backgroundColor, getComputedStyle(w.shadowRoot.querySelector("form")).display];
  });
  assert.equal(background, "rgb(31, 111, 235)", "the widget's button style");
  assert.equal(display, "flex", "the widget's form style");
  await assertNoViolation();
});

test("search and a streamed answer work under the policy", async () => {
  await (await page.$(`${W}#wg-search`)).click();
  await page.keyboard.type("agent memory");
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => document.querySelector("wikigate-ask").shadowRoot.querySelector(".hits a"), { timeout: 30000 });
  for (const h of await page.$$eval(`${W}.hits a`, (as) => as.map((a) => a.href))) assert.equal(statusOfPage(h), "approved", h);

  await (await page.$(`${W}#wg-question`)).click();
  await page.keyboard.type("How do I configure agent memory?");
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => document.querySelector("wikigate-ask").shadowRoot.querySelector(".turn .citations a"), { timeout: 30000 });
  const cites = await page.$$eval(`${W}.turn .citations a`, (as) => as.map((a) => [a.href, a.rel]));
  assert.ok(cites.length > 0);
  for (const [href, rel] of cites) {
    assert.equal(statusOfPage(href), "approved", href);
    assert.equal(rel, "noopener noreferrer");
  }
  await assertNoViolation();
});
