// The <wikigate-ask> widget for keyboard and screen-reader users, and in a
// dark color scheme, on the gate's /demo/ page in headless Chromium (run by
// integration/widget_browser_test.go). axe-core (pinned by the lockfile)
// checks the widget's shadow root in each state a reader meets: empty,
// with hits, with an answer and its citations, with a no-answer and its
// report button, in the light and the dark scheme. Env: WIKIGATE_URL,
// CHROMIUM_PATH, WIKIGATE_ARTIFACTS.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import puppeteer from "puppeteer-core";

const gate = process.env.WIKIGATE_URL;
const W = "wikigate-ask >>> ";
const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

let browser, page;

before(async () => {
  browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM_PATH,
    headless: true,
    args: ["--no-sandbox", "--disable-dev-shm-usage"], // CI runs as root
  });
  page = await browser.newPage();
  await page.setViewport({ width: 900, height: 900 });
  const res = await page.goto(`${gate}/demo/`, { waitUntil: "networkidle0" });
  assert.equal(res.status(), 200);
  // Evaluated through the DevTools protocol: /demo/'s own policy allows no
  // inline script, and the widget is checked under it.
  await page.evaluate(axeSource);
  assert.equal(await page.evaluate(() => typeof window.axe?.run), "function");
});

after(async () => browser?.close());

const widget = (fn, ...args) => page.$eval("wikigate-ask", fn, ...args);

// waitInWidget waits until selector matches inside the widget's shadow root.
const waitInWidget = (selector, timeout = 30000) => page.waitForFunction(
  (sel) => document.querySelector("wikigate-ask")?.shadowRoot?.querySelector(sel), { timeout }, selector);

// axeOnWidget runs axe on the widget (its shadow tree included) and returns
// the violations and how many checks of nodes inside the shadow root it
// made (such a node's target is a list: the host, then the shadow node).
async function axeOnWidget() {
  return page.evaluate(async () => {
    const r = await window.axe.run({ include: [["wikigate-ask"]] });
    const inShadow = [...r.passes, ...r.violations].flatMap((x) => x.nodes).filter((n) => n.target.some(Array.isArray)).length;
    return {
      inShadow,
      violations: r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.flat().join(" >>> ")) })),
    };
  });
}

async function assertAccessible(state) {
  const { inShadow, violations } = await axeOnWidget();
  assert.ok(inShadow > 10, `axe examined ${inShadow} nodes in the shadow root (${state})`);
  const bad = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  console.log(`axe (${state}): ${inShadow} checks in the shadow root, violations: ${JSON.stringify(violations.map((v) => `${v.id}:${v.impact}`))}`);
  assert.deepEqual(bad, [], `serious or critical axe violations (${state})`);
}

async function ask(question) {
  await (await page.$(`${W}#wg-question`)).click({ count: 3 });
  await page.keyboard.type(question);
  await page.keyboard.press("Enter");
}

// focusedInWidget describes the widget's focused element.
const focusedInWidget = () => page.evaluate(() => {
  const e = document.querySelector("wikigate-ask").shadowRoot.activeElement;
  if (!e) return null;
  const s = getComputedStyle(e);
  const label = e.labels?.[0]?.textContent || e.getAttribute("aria-label") || e.textContent.trim();
  return { tag: e.tagName, label, outline: `${s.outlineStyle} ${s.outlineWidth}`, visible: e.matches(":focus-visible") };
});

test("every control is reached with Tab in order, shows a visible focus ring and has a name", async () => {
  await (await page.$(`${W}#wg-search`)).focus();
  const seen = [];
  for (let i = 0; i < 5; i++) {
    seen.push(await focusedInWidget());
    await page.keyboard.press("Tab");
  }
  const names = seen.map((s) => s && `${s.tag} ${s.label}`);
  assert.deepEqual(names, ["INPUT Search the docs", "BUTTON Search", "INPUT Ask a question", "BUTTON Ask", "BUTTON New conversation"]);
  for (const s of seen) {
    assert.ok(s, `focus left the widget: ${JSON.stringify(seen)}`);
    assert.ok(s.label, `${s.tag} has no accessible name`);
    assert.ok(s.visible, `${s.tag} ${s.label} is not :focus-visible`);
    assert.match(s.outline, /^solid [3-9]px$/, `${s.tag} ${s.label}: focus outline ${s.outline}`);
  }
});

test("axe finds no serious or critical violation in the widget, light and dark", async () => {
  await assertAccessible("empty");
  await (await page.$(`${W}#wg-search`)).click();
  await page.keyboard.type("agent memory");
  await page.keyboard.press("Enter");
  await waitInWidget(".hits a");
  await ask("How do I configure agent memory?");
  await waitInWidget(".turn .citations a");
  await ask("What is the office catering menu?");
  await waitInWidget(".turn:last-of-type .noanswer button");
  await assertAccessible("hits, an answer with citations, a no-answer with its report button");
  // Tab after the last control reaches the answer's first reference, ringed.
  await (await page.$(`${W}button.secondary`)).focus();
  await page.keyboard.press("Tab");
  const ref = await focusedInWidget();
  assert.deepEqual([ref?.tag, ref?.visible], ["A", true], JSON.stringify(ref));
  assert.match(ref.label, /^citation \d+$/);
  assert.match(ref.outline, /^solid [3-9]px$/);
  await page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: "dark" }]);
  try {
    await assertAccessible("the same, dark");
  } finally {
    await page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: "light" }]);
  }
});

test("the widget follows prefers-color-scheme", async () => {
  const colors = () => widget((w) => {
    const s = getComputedStyle(w);
    return [s.color, s.backgroundColor, getComputedStyle(w.shadowRoot.querySelector("#wg-question")).backgroundColor];
  });
  const light = await colors();
  await page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: "dark" }]);
  try {
    const dark = await colors();
    assert.deepEqual(light, ["rgb(27, 31, 36)", "rgb(255, 255, 255)", "rgb(255, 255, 255)"]);
    assert.deepEqual(dark, ["rgb(230, 237, 243)", "rgb(13, 17, 23)", "rgb(13, 17, 23)"], "text and backgrounds turn dark");
    const shot = join(process.env.WIKIGATE_ARTIFACTS, "widget-dark.png");
    await page.screenshot({ path: shot, fullPage: true });
    console.log(`screenshot of the dark scheme: ${shot}`);
  } finally {
    await page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: "light" }]);
  }
  // A site sets its own colors on the element (README "On a docs site").
  const accent = await widget((w) => {
    w.style.setProperty("--wg-accent", "#7c3aed");
    const c = getComputedStyle(w.shadowRoot.querySelector("button")).backgroundColor;
    w.style.removeProperty("--wg-accent");
    return c;
  });
  assert.equal(accent, "rgb(124, 58, 237)", "a page's --wg-accent on the element wins");
});

// sseBody frames events as the gate does.
const sseBody = (events) =>
  events.map(([name, data], i) => `event: ${name}\nid: ${i + 1}\ndata: ${JSON.stringify(data)}\n\n`).join("");

test("each streamed sentence is announced in a live region as it arrives, and the result is not read twice", async () => {
  const sentences = ["Agent memory keeps a window of recent turns [1].", " Set its size in the agent's config [1]."];
  const answer = sentences.join("");
  const citation = { path: "publish/system/components/kunora-kgent/memory.md", url: "/system/components/kunora-kgent/memory", title: "Agent memory configuration" };
  const body = sseBody([
    ["status", { stage: "generating", message: "generating" }],
    ["citations", { citations: [citation], final: false }],
    ["delta", { text: sentences[0] }],
    ["delta", { text: sentences[1] }],
    ["citations", { citations: [citation], final: true }],
    ["result", { answer, citations: [citation], confidence: "high", actions: [], noAnswerReason: null }],
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
  // What a screen reader is told: text added under a live region (aria-live
  // other than off, or role log/status/alert) that is not aria-busy.
  await page.evaluate(() => {
    const root = document.querySelector("wikigate-ask").shadowRoot;
    window.__announced = [];
    const live = (n) => {
      let region = null;
      for (let e = n.nodeType === 1 ? n : n.parentElement; e; e = e.parentElement) {
        if (e.getAttribute("aria-busy") === "true") return null;
        const l = e.getAttribute("aria-live") || { log: "polite", status: "polite", alert: "assertive" }[e.getAttribute("role")];
        if (!region && l) region = l;
      }
      return region && region !== "off" ? region : null;
    };
    new MutationObserver((records) => {
      for (const r of records) {
        const added = r.type === "characterData" ? [r.target] : [...r.addedNodes];
        for (const n of added) if (n.textContent && live(n)) window.__announced.push(n.textContent);
      }
    }).observe(root, { childList: true, subtree: true, characterData: true });
  });
  await page.setRequestInterception(true);
  page.on("request", replay);
  try {
    await ask("How big is agent memory?");
    await page.waitForFunction(
      () => [...document.querySelector("wikigate-ask").shadowRoot.querySelectorAll(".turn")].at(-1).querySelector(".citations"),
      { timeout: 30000 });
  } finally {
    page.off("request", replay);
    await page.setRequestInterception(false);
  }
  const announced = await page.evaluate(() => window.__announced);
  for (const s of sentences) assert.ok(announced.includes(s), `"${s}" was not announced: ${JSON.stringify(announced)}`);
  const readTwice = announced.filter((a) => a.includes(sentences[0]) && a !== sentences[0]);
  assert.deepEqual(readTwice, [], "the result repeated the streamed answer to the screen reader");
  assert.ok(announced.includes("Answered with 1 citation."), JSON.stringify(announced));
});
