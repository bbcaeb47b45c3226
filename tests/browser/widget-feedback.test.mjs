// Feedback on answers and a conversation restored after a reload, in the
// <wikigate-ask> widget on the gate's /demo/ page in headless Chromium (run
// by integration/widget_feedback_browser_test.go): a reader asks, reloads
// the page, sees the conversation again (read from the session's history),
// rates the answer "helpful" and reports a problem with it, by keyboard;
// the gate records both under the answer's dedupeKey; axe-core finds no
// serious or critical violation in the rated conversation; a second reload
// still shows the rating. Env: WIKIGATE_URL, CHROMIUM_PATH,
// WIKIGATE_ARTIFACTS (the screenshot widget-restored-rated.png).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import puppeteer from "puppeteer-core";

const gate = process.env.WIKIGATE_URL;
const W = "wikigate-ask >>> ";
const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const question = "How do I configure agent memory?";

let browser, page;
const feedback = []; // the gate's answers to POST /answer/feedback

before(async () => {
  browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM_PATH,
    headless: true,
    args: ["--no-sandbox", "--disable-dev-shm-usage"], // CI runs as root
  });
  page = await browser.newPage();
  await page.setViewport({ width: 900, height: 900 });
  page.on("response", async (r) => {
    if (r.request().method() === "POST" && new URL(r.url()).pathname === "/answer/feedback") {
      feedback.push({ status: r.status(), body: await r.json().catch(() => null) });
    }
  });
  const res = await page.goto(`${gate}/demo/`, { waitUntil: "networkidle0" });
  assert.equal(res.status(), 200);
});

after(async () => browser?.close());

const waitInWidget = (selector, timeout = 60000) => page.waitForFunction(
  (sel) => document.querySelector("wikigate-ask")?.shadowRoot?.querySelector(sel), { timeout }, selector);

// inShadow runs fn(shadowRoot, ...args) in the page (the root is looked
// up each time: a reload replaces it).
async function inShadow(fn, ...args) {
  const root = await page.evaluateHandle(() => document.querySelector("wikigate-ask").shadowRoot);
  try {
    return await root.evaluate(fn, ...args);
  } finally {
    await root.dispose();
  }
}

// focused describes the widget's focused element: tag and accessible name.
const focused = () => inShadow((root) => {
  const e = root.activeElement;
  return e && `${e.tagName} ${(e.labels?.[0]?.textContent || e.getAttribute("aria-label") || e.textContent).trim()}`;
});

// tabTo presses Tab until the widget's focused element is name (at most 40).
async function tabTo(name) {
  for (let i = 0; i < 40; i++) {
    if ((await focused()) === name) return;
    await page.keyboard.press("Tab");
  }
  assert.fail(`Tab never reached ${name} (at ${await focused()})`);
}

// waitFeedback waits for the n-th answer of the feedback route.
async function waitFeedback(n) {
  for (let i = 0; i < 300 && feedback.length < n; i++) await new Promise((r) => setTimeout(r, 100));
  assert.equal(feedback.length, n, "the widget sent no feedback");
  return feedback[n - 1];
}

// reloadAndRead reloads the page and returns the session history the
// widget read to restore the conversation.
async function reloadAndRead() {
  const history = page.waitForResponse((r) => r.request().method() === "GET" && /^\/answer\/sessions\/[^/]+$/.test(new URL(r.url()).pathname));
  await page.reload({ waitUntil: "networkidle0" });
  const r = await history;
  assert.equal(r.status(), 200, "the session's history");
  await waitInWidget(".turn .citations a");
  return r.json();
}

let action; // the restored answer's create_feedback action

test("a reload restores the conversation from the session's history", async () => {
  await (await page.$(`${W}#wg-question`)).click();
  await page.keyboard.type(question);
  await page.keyboard.press("Enter");
  await waitInWidget(".turn .rate button");
  const asked = await inShadow((root) => ({
    answer: root.querySelector(".turn .answer").textContent,
    cites: [...root.querySelectorAll(".turn .citations a")].map((a) => a.href),
  }));
  assert.ok(await page.evaluate(() => Object.keys(sessionStorage).some((k) => k.startsWith("wikigate-ask "))), "the session is kept in sessionStorage");

  const history = await reloadAndRead();
  assert.equal(history.turns.length, 1);
  action = history.turns[0].actions.find((a) => a.type === "create_feedback");
  assert.ok(action?.enabled && /^[0-9a-f]{64}$/.test(action.dedupeKey), JSON.stringify(history.turns[0].actions));
  const restored = await inShadow((root) => ({
    turns: root.querySelectorAll(".turn").length,
    question: root.querySelector(".turn .question").textContent,
    answer: root.querySelector(".turn .answer").textContent,
    cites: [...root.querySelectorAll(".turn .citations a")].map((a) => a.href),
    status: root.querySelector("#wg-status").textContent,
  }));
  assert.deepEqual(restored, { turns: 1, question, answer: asked.answer, cites: asked.cites, status: "Conversation restored (1 answer)." });
});

test("the restored answer is rated helpful by keyboard, under its dedupeKey", async () => {
  await (await page.$(`${W}#wg-question`)).focus();
  await tabTo("BUTTON Helpful");
  const group = await inShadow((root) => {
    const g = root.querySelector(".turn .rate");
    return [g.getAttribute("role"), g.getAttribute("aria-label"), [...g.querySelectorAll(":scope > button")].map((b) => `${b.textContent}:${b.getAttribute("aria-pressed")}`)];
  });
  assert.deepEqual(group, ["group", "Was this answer helpful?", ["Helpful:false", "Not helpful:false", "Report a problem:null"]]);
  await page.keyboard.press("Enter");
  const { status, body } = await waitFeedback(1);
  assert.equal(status, 200, JSON.stringify(body));
  assert.equal(body.record.dedupeKey, action.dedupeKey);
  assert.deepEqual([body.record.eventType, body.record.ratings], ["qa_answer", { helpful: 1, notHelpful: 0 }]);
  await page.waitForFunction(() => document.querySelector("wikigate-ask").shadowRoot.querySelector(".rate [role=status]").textContent === "Thank you for rating this answer.");
  const pressed = await inShadow((root) => [...root.querySelectorAll(".rate button[aria-pressed]")].map((b) => b.getAttribute("aria-pressed")));
  assert.deepEqual(pressed, ["true", "false"]);
});

test("a problem is reported with a comment, by keyboard, into the same record", async () => {
  await tabTo("BUTTON Report a problem");
  await page.keyboard.press("Enter");
  assert.equal(await focused(), "TEXTAREA What is wrong with this answer?");
  assert.equal(await inShadow((root) => root.querySelector(".rate button[aria-expanded]").getAttribute("aria-expanded")), "true");
  await page.keyboard.type("The page does not say how long memory is kept.");
  await page.keyboard.press("Tab");
  assert.equal(await focused(), "BUTTON Send report");
  await page.keyboard.press("Enter");
  const { status, body } = await waitFeedback(2);
  assert.equal(status, 200, JSON.stringify(body));
  assert.equal(body.record.dedupeKey, action.dedupeKey);
  assert.deepEqual([body.created, body.record.count, body.record.ratings], [false, 2, { helpful: 1, notHelpful: 1 }]);
  await page.waitForFunction(() => document.querySelector("wikigate-ask").shadowRoot.activeElement?.textContent === "Thank you: the problem was reported to the docs team.");
});

test("the rated conversation is accessible and survives another reload", async () => {
  await page.evaluate(axeSource);
  const { checked, bad } = await page.evaluate(async () => {
    const r = await window.axe.run({ include: [["wikigate-ask"]] });
    return {
      checked: [...r.passes, ...r.violations].flatMap((x) => x.nodes).filter((n) => n.target.some(Array.isArray)).length,
      bad: r.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.help}`),
    };
  });
  assert.ok(checked > 10, `axe examined ${checked} nodes in the shadow root`);
  assert.deepEqual(bad, []);

  await reloadAndRead();
  await waitInWidget(".turn .rate button");
  const pressed = await inShadow((root) => [...root.querySelectorAll(".rate button[aria-pressed]")].map((b) => `${b.textContent}:${b.getAttribute("aria-pressed")}`));
  assert.deepEqual(pressed, ["Helpful:true", "Not helpful:false"]);
  const shot = join(process.env.WIKIGATE_ARTIFACTS, "widget-restored-rated.png");
  await page.screenshot({ path: shot, fullPage: true });
  console.log(`screenshot of the restored, rated conversation: ${shot}`);
});
