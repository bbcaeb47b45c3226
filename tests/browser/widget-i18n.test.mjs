// The <wikigate-ask> widget's languages, in headless Chromium on the gate's
// /demo/ page (run by integration/widget_browser_test.go): the UI is
// Chinese for a zh or zh-* language taken from the element's lang, else the
// page's <html lang>, else the browser's, English otherwise; the
// protocol's own example question is asked and answered in the Chinese
// UI. Env: WIKIGATE_URL, CHROMIUM_PATH, WIKIGATE_ARTIFACTS, WIKIGATE_PAGES.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import puppeteer from "puppeteer-core";
import { statusOfPage } from "./pages.mjs";

const gate = process.env.WIKIGATE_URL;
const W = "wikigate-ask >>> ";

let browser, page;

before(async () => {
  browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM_PATH,
    headless: true,
    args: ["--no-sandbox", "--disable-dev-shm-usage"], // CI runs as root
  });
  page = await browser.newPage();
  await page.setViewport({ width: 900, height: 900 });
  // A reader whose browser is set to Traditional Chinese.
  await page.evaluateOnNewDocument(() => Object.defineProperty(Navigator.prototype, "language", { get: () => "zh-TW" }));
  const res = await page.goto(`${gate}/demo/`, { waitUntil: "networkidle0" });
  assert.equal(res.status(), 200);
});

after(async () => browser?.close());

// mount replaces the page's widget with a new one, the element's lang and
// the page's <html lang> set as given (null: no attribute), and returns
// its labels, buttons and the lang its content carries.
async function mount(elementLang, htmlLang) {
  return page.evaluate((elementLang, htmlLang) => {
    document.querySelector("wikigate-ask").remove();
    if (htmlLang === null) document.documentElement.removeAttribute("lang");
    else document.documentElement.lang = htmlLang;
    const w = document.createElement("wikigate-ask");
    w.setAttribute("page", "/system/components/kunora-kgent/");
    if (elementLang !== null) w.setAttribute("lang", elementLang);
    document.querySelector("main").append(w);
    const root = w.shadowRoot;
    return {
      labels: [...root.querySelectorAll("label, button")].map((e) => e.textContent),
      lang: [...root.querySelectorAll("section")].map((s) => s.lang),
    };
  }, elementLang, htmlLang);
}

const english = ["Search the docs", "Search", "Ask a question", "Ask", "New conversation"];
const chinese = ["搜索文档", "搜索", "输入问题", "提问", "新对话"];

test("the UI's language: the element's lang, else the page's, else the browser's", async () => {
  assert.deepEqual(await mount("zh-CN", "en"), { labels: chinese, lang: ["zh-CN", "zh-CN"] }, "element lang zh-CN on an English page");
  assert.deepEqual(await mount(null, "zh"), { labels: chinese, lang: ["zh", "zh"] }, "<html lang=zh>");
  assert.deepEqual(await mount("en", "zh-Hans"), { labels: english, lang: ["en", "en"] }, "element lang en on a Chinese page");
  assert.deepEqual(await mount(null, "fr"), { labels: english, lang: ["en", "en"] }, "a language without strings is English");
  assert.deepEqual(await mount(null, null), { labels: chinese, lang: ["zh-TW", "zh-TW"] }, "no lang anywhere: the browser's zh-TW");
});

test("the Chinese strings cover every English one", async () => {
  const shape = await page.evaluate(async () => {
    const { STRINGS } = await import("/answer/widget/v1/wikigate-ask.js");
    // keys: every path in a language's table with its type; a function is
    // called with 2 so its text can be checked too.
    const keys = (o, at = "") => Object.entries(o).flatMap(([k, v]) => typeof v === "object"
      ? keys(v, `${at}${k}.`) : [`${at}${k}: ${typeof v}${typeof v === "function" ? ` ${v(2) === "" ? "empty" : "text"}` : ""}`]);
    return { en: keys(STRINGS.en), zh: keys(STRINGS.zh) };
  });
  const reasons = (k) => k.startsWith("reasons.");
  assert.deepEqual(shape.zh.filter((k) => !reasons(k)), shape.en, "zh and en tables have the same entries");
  assert.deepEqual(shape.zh.filter(reasons).map((k) => k.split(":")[0]).sort(),
    ["reasons.empty_response", "reasons.no_evidence", "reasons.uncited_answer", "reasons.unsupported_answer"],
    "every no-answer reason of the gate has a Chinese text");
});

test("the protocol's example question is answered in the Chinese UI", async () => {
  await mount(null, "zh-CN");
  await (await page.$(`${W}#wg-question`)).click();
  await page.keyboard.type("kunora-kgent 如何配置 agent memory?");
  await page.keyboard.press("Enter");
  await page.waitForFunction(
    () => document.querySelector("wikigate-ask").shadowRoot.querySelector(".turn .answer[aria-busy=false]"), { timeout: 30000 });
  const turn = await page.$(`${W}.turn`);
  const state = await page.$eval("wikigate-ask", (w) => {
    const r = w.shadowRoot;
    return {
      status: r.querySelector(".status").textContent,
      confidence: r.querySelector(".confidence")?.textContent,
      sources: r.querySelector(".citations")?.getAttribute("aria-label"),
      refs: [...r.querySelectorAll(".answer a.ref")].map((a) => a.getAttribute("aria-label")),
      noAnswer: r.querySelector(".noanswer")?.textContent,
    };
  });
  assert.equal(state.noAnswer, undefined, `no answer: ${state.noAnswer}`);
  assert.match(state.status, /^已回答，引用了 \d+ 个来源。$/);
  assert.match(state.confidence, /^可信度：(高|中|低)$/);
  assert.equal(state.sources, "来源");
  assert.ok(state.refs.length > 0 && state.refs.every((r) => /^引用 \d+$/.test(r)), JSON.stringify(state.refs));
  for (const href of await turn.$$eval(".citations a", (as) => as.map((a) => a.href))) assert.equal(statusOfPage(href), "approved", href);
  const shot = join(process.env.WIKIGATE_ARTIFACTS, "widget-zh.png");
  await page.screenshot({ path: shot, fullPage: true });
  console.log(`screenshot of the Chinese UI: ${shot}`);
});

test("a no-answer is explained in Chinese and offers the report in Chinese", async () => {
  await (await page.$(`${W}#wg-question`)).click({ count: 3 });
  await page.keyboard.type("如何申请一台新的笔记本电脑？");
  await page.keyboard.press("Enter");
  await page.waitForFunction(
    () => document.querySelector("wikigate-ask").shadowRoot.querySelector(".turn:last-of-type .noanswer"), { timeout: 30000 });
  const box = await page.$eval("wikigate-ask", (w) => {
    const b = w.shadowRoot.querySelector(".turn:last-of-type .noanswer");
    return { text: b.querySelector("p").textContent, button: b.querySelector("button")?.textContent, status: w.shadowRoot.querySelector(".status").textContent };
  });
  assert.match(box.text, /[\u4e00-\u9fff]/, `the reason is in Chinese: ${box.text}`);
  assert.equal(box.status, "没有找到答案。");
  assert.equal(box.button, "报告文档缺漏");
});
