// The <wikigate-ask> widget on the gate's /demo/ page, in headless Chromium
// (run by integration/widget_browser_test.go). Env: WIKIGATE_URL (the gate),
// CHROMIUM_PATH, WIKIGATE_ARTIFACTS (where the screenshot goes),
// WIKIGATE_PAGES (the wiki's pages, to check what citations point at).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import puppeteer from "puppeteer-core";
import { statusOfPage } from "./pages.mjs";

const gate = process.env.WIKIGATE_URL;
const artifacts = process.env.WIKIGATE_ARTIFACTS;
const W = "wikigate-ask >>> "; // puppeteer's shadow-piercing combinator

let browser, page;
const requests = [];

before(async () => {
  browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM_PATH,
    headless: true,
    // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
    args: ["--no-sandbox", "--disable-dev-shm-usage"],
  });
  page = await browser.newPage();
  await page.setViewport({ width: 900, height: 900 });
  page.on("request", (r) => requests.push(`${r.method()} ${new URL(r.url()).pathname}`));
  const res = await page.goto(`${gate}/demo/`, { waitUntil: "networkidle0" });
  assert.equal(res.status(), 200);
});

after(async () => browser?.close());

// watchAnswer counts, in the page, the states the streamed (provisional)
// text goes through before the result replaces it.
async function watchAnswer() {
  await page.evaluate(() => {
    const root = document.querySelector("wikigate-ask").shadowRoot;
    window.__states = [];
    const obs = new MutationObserver(() => {
      const turns = root.querySelectorAll(".turn");
      const p = turns[turns.length - 1]?.querySelector(".provisional");
      const s = window.__states;
      if (p && s[s.length - 1] !== p.textContent) s.push(p.textContent);
    });
    obs.observe(root.querySelector(".turns"), { childList: true, subtree: true, characterData: true });
  });
}

// inWidget waits for a selector inside the widget's shadow root and returns
// the element. (waitForSelector with ">>>" did not see into it.)
async function inWidget(selector, timeout = 30000) {
  await page.waitForFunction(
    (sel) => document.querySelector("wikigate-ask")?.shadowRoot?.querySelector(sel),
    { timeout }, selector,
  );
  return page.$(W + selector);
}

async function askByKeyboard(question) {
  const input = await page.$(`${W}#wg-question`);
  await input.click({ count: 3 });
  await page.keyboard.type(question);
  await page.keyboard.press("Enter");
}

test("search lists approved pages", async () => {
  await page.$(`${W}#wg-search`).then((i) => i.click());
  await page.keyboard.type("agent memory");
  await page.keyboard.press("Enter");
  await inWidget(".hits a");
  const hrefs = await page.$$eval(`${W}.hits a`, (as) => as.map((a) => a.href));
  assert.ok(hrefs.length > 0);
  for (const h of hrefs) assert.equal(statusOfPage(h), "approved", h);
});

test("an answer streams in steps, then shows numbered citations to in-scope pages", async () => {
  await watchAnswer();
  await askByKeyboard("How do I configure agent memory?");
  await inWidget(".turn .citations a");
  const states = await page.evaluate(() => window.__states);
  assert.ok(states.length >= 2, `streamed text arrived in ${states.length} step(s): ${JSON.stringify(states)}`);
  console.log(`streamed text arrived in ${states.length} steps`);

  const turn = await page.$(`${W}.turn:last-of-type`);
  const answer = await turn.$eval(".answer", (e) => e.textContent);
  const provisionalLeft = await turn.$$(".provisional");
  assert.equal(provisionalLeft.length, 0, "the result replaced the provisional text");
  assert.equal(answer.trim(), states[states.length - 1].trim(), "the deltas add up to the result's answer");
  const cites = await turn.$$eval(".citations li a", (as) => as.map((a) => a.href));
  const refs = await turn.$$eval(".answer a.ref", (as) => as.map((a) => a.textContent));
  assert.ok(refs.length > 0, "the answer carries [n] references");
  for (const r of refs) {
    const n = Number(r.slice(1, -1));
    assert.ok(n >= 1 && n <= cites.length, `${r} names one of ${cites.length} citations`);
  }
  for (const c of cites) assert.equal(statusOfPage(c), "approved", c);
  const confidence = await turn.$eval(".confidence", (e) => e.textContent);
  assert.match(confidence, /^Confidence: (high|medium|low)$/);
  // the streamed sentences went to the screen reader's log (widget-a11y.test.mjs), not the answer
  const live = await turn.$eval(".answer", (e) => [e.getAttribute("aria-live"), e.getAttribute("aria-busy")]);
  assert.deepEqual(live, [null, "false"]);
  // focus is back in the question box for a follow-up
  await page.waitForFunction(() => document.querySelector("wikigate-ask").shadowRoot.activeElement?.id === "wg-question");

  const shot = join(artifacts, "widget-answered.png");
  await page.screenshot({ path: shot, fullPage: true });
  console.log(`screenshot of the answered state: ${shot}`);
});

test("a follow-up is a turn of the same session", async () => {
  await askByKeyboard("How do I use Redis as the memory store?");
  await page.waitForFunction(
    () => document.querySelector("wikigate-ask").shadowRoot.querySelectorAll(".turn .answer[aria-busy=false]").length === 2,
    { timeout: 30000 },
  );
  const creates = requests.filter((r) => r === "POST /answer/sessions");
  const turns = requests.filter((r) => /^POST \/answer\/sessions\/[^/]+\/turns$/.test(r));
  assert.equal(creates.length, 1, requests.join("\n"));
  assert.equal(turns.length, 2, requests.join("\n"));
});

test("an unanswerable question offers to report the gap, and the report is recorded", async () => {
  await askByKeyboard("What is the office catering menu?");
  const button = await inWidget(".turn:last-of-type .noanswer button");
  assert.equal(await button.evaluate((b) => b.textContent), "Report this gap");
  const reported = page.evaluate(() => new Promise((resolve) => {
    document.querySelector("wikigate-ask").addEventListener("wikigate-feedback", (e) => resolve(e.detail), { once: true });
  }));
  const response = page.waitForResponse((r) => new URL(r.url()).pathname === "/answer/feedback");
  await button.focus();
  await page.keyboard.press("Enter");
  const res = await response;
  assert.equal(res.status(), 200);
  const body = await res.json();
  assert.equal(body.created, true);
  assert.equal(body.record.eventType, "qa_no_answer");
  const { action, record } = await reported;
  assert.equal(record.dedupeKey, action.dedupeKey, "the report merges under the no-answer's dedupeKey");
  const note = await inWidget(".turn:last-of-type .noanswer [role=status]");
  assert.match(await note.evaluate((n) => n.textContent), /gap was reported/);
  const focused = await page.evaluate(() => document.querySelector("wikigate-ask").shadowRoot.activeElement?.textContent);
  assert.match(focused ?? "", /gap was reported/, "focus moved to the confirmation");
});

// sseBody frames events as the gate does.
const sseBody = (events) =>
  events.map(([name, data], i) => `event: ${name}\nid: ${i + 1}\ndata: ${JSON.stringify(data)}\n\n`).join("");

test("a result that turns the answer into a no-answer replaces the text already streamed", async () => {
  // The gate's final checks can refuse an answer whose first sentences were
  // verified and streamed (README "How a client treats deltas"); the gate's
  // stream is replayed here so the widget meets exactly that case.
  const streamed = "Agent memory keeps a window of recent turns [1].";
  const body = sseBody([
    ["status", { stage: "generating", message: "generating" }],
    ["citations", { citations: [{ path: "publish/system/components/kunora-kgent/memory.md", url: "/system/components/kunora-kgent/memory", title: "Agent memory configuration" }], final: false }],
    ["delta", { text: streamed }],
    ["citations", { citations: [], final: true }],
    ["result", { answer: "", citations: [], confidence: "low", actions: [],
      noAnswerReason: { code: "unsupported_answer", message: "Too little of the answer was supported by the docs." } }],
    ["done", {}],
  ]);
  const replay = (req) => {
    if (req.isInterceptResolutionHandled()) return;
    const path = new URL(req.url()).pathname;
    if (req.method() === "POST" && (/^\/answer\/sessions\/[^/]+\/turns$/.test(path) || path === "/answer/ask")) {
      req.respond({ status: 200, contentType: "text/event-stream; charset=utf-8", body });
    } else {
      req.continue();
    }
  };
  await page.setRequestInterception(true);
  page.on("request", replay);
  try {
    await watchAnswer();
    await askByKeyboard("Does agent memory keep everything forever?");
    const box = await inWidget(".turn:last-of-type .noanswer");
    assert.match(await box.evaluate((b) => b.textContent), /Too little of the answer was supported/);
    const turn = await page.$(`${W}.turn:last-of-type`);
    const answer = await turn.$eval(".answer", (e) => e.textContent);
    assert.ok(!answer.includes("window of recent turns"), `streamed text left after the no-answer: ${answer}`);
    assert.equal((await turn.$$(".provisional, .citations, .confidence")).length, 0);
    const states = await page.evaluate(() => window.__states);
    assert.ok(states.includes(streamed), `the delta was never shown: ${JSON.stringify(states)}`);
  } finally {
    page.off("request", replay);
    await page.setRequestInterception(false);
  }
});

// References are what the gate numbers as one (README "Numbering"): code
// such as items[1], a link's [2](x) and [n] inside a fenced block stay text.
// Citation links keep docs-base's path (a docs site served under /docs/).
test("references follow the gate's rule; links keep docs-base's path", async () => {
  const refs = await page.$eval("wikigate-ask", (w) =>
    w.answerNodes("Set items[1] first [1].\n```\nx = y[2] [2]\n```\nSee [2](x) and [2].", 2)
      .filter((n) => n.nodeName === "A").map((n) => `${n.textContent} ${n.getAttribute("href")}`));
  assert.equal(refs.length, 2, JSON.stringify(refs));
  assert.match(refs[0], /^\[1\] #wg-t\d+-c1$/);
  assert.match(refs[1], /^\[2\] #wg-t\d+-c2$/);
  const links = await page.$eval("wikigate-ask", (w) => {
    const before = w.getAttribute("docs-base");
    const out = [];
    for (const base of ["https://docs.example/docs/", "https://docs.example"]) {
      w.setAttribute("docs-base", base);
      out.push(w.link({ url: "/system/a", anchor: "b" }), w.link({ url: "https://other.example/p" }));
    }
    if (before === null) w.removeAttribute("docs-base"); else w.setAttribute("docs-base", before);
    return out;
  });
  assert.deepEqual(links, ["https://docs.example/docs/system/a#b", "https://other.example/p",
    "https://docs.example/system/a#b", "https://other.example/p"]);
});

// A link only to an http(s) page or a docs path: whatever else a url says
// (the gate drops such urls already; the widget does not rely on it), the
// title is shown as text, not as a link.
test("links only to http(s) pages; any other url is no link", async () => {
  const hostile = ["javascript:alert(1)", "JaVaScRiPt:alert(1)", " javascript:alert(1)", "java\tscript:alert(1)",
    "\u0000javascript:alert(1)", "\u00a0javascript:alert(1)", "java\u200bscript:alert(1)",
    "data:text/html,<script>alert(1)</script>", "vbscript:msgbox(1)", "file:///etc/passwd", "blob:https://x/y",
    "//evil.example/x", "/\\evil.example/x", "\\\\evil.example", "https:evil.example", "https:/evil.example",
    "https://user:pw@evil.example/", "https://docs.example@evil.example/", "http://", "", null, 7];
  const got = await page.$eval("wikigate-ask", (w, urls) => urls.map((url) => w.link({ url })), hostile);
  assert.deepEqual(got, hostile.map(() => null), JSON.stringify(hostile.map((u, i) => [u, got[i]])));
  const rendered = await page.$eval("wikigate-ask", (w) => {
    const n = w.pageLink({ url: "javascript:alert(1)", title: "<img src=x onerror=alert(1)>" });
    const a = w.pageLink({ url: "https://docs.example/a", title: "A" });
    return [n.nodeName, n.textContent, n.children.length, a.nodeName, a.getAttribute("rel")];
  });
  assert.deepEqual(rendered, ["SPAN", "<img src=x onerror=alert(1)>", 0, "A", "noopener noreferrer"]);
});
