// <wikigate-ask>: search and ask a wikigate gate from a docs page.
// One dependency-free ES module (README "On a docs site"). Attributes:
//   gate       the gate's base URL (default: this page's origin)
//   page       the docs page URL the reader is on (scopes answers like
//              /answer/ask's `page`; default: none, the public default)
//   docs-base  base URL for citation links, its path kept (https://x.com/docs/
//              makes /a/b https://x.com/docs/a/b; default: this page's origin)
//   lang       the UI's language, read when the element is connected: zh
//              (any zh-*) or en; default: the page's <html lang>, else the
//              browser's language (STRINGS holds every UI string)
// The conversation's session id and token are kept in sessionStorage (this
// tab only), so a reload restores the conversation from the session's
// history (GET /answer/sessions/{id}); "New conversation" forgets them.
// Server text is only ever set with textContent: answers and titles come
// from the wiki, and the page must not run what a wiki page contains. A
// hit or citation links only to an http(s) URL or a docs path (safeHref);
// the styles are a constructed stylesheet, so a page's Content-Security-
// Policy needs no 'unsafe-inline' for the widget (README "Safe URLs and
// the widget's Content-Security-Policy").

const STYLE = `
:host { --wg-fg: #1b1f24; --wg-bg: #fff; --wg-muted: #57606a; --wg-border: #8c959f; --wg-line: #d0d7de;
  --wg-accent: #1f6feb; --wg-link: #0969da; --wg-warn-bg: #fff8c5; --wg-warn: #d4a72c; --wg-error: #cf222e;
  --wg-focus: #bc4c00; color-scheme: light;
  display: block; font: 15px/1.5 system-ui, sans-serif; color: var(--wg-fg); background: var(--wg-bg); max-width: 46rem; }
@media (prefers-color-scheme: dark) {
  :host { --wg-fg: #e6edf3; --wg-bg: #0d1117; --wg-muted: #9198a1; --wg-border: #656c76; --wg-line: #30363d;
    --wg-link: #4493f8; --wg-warn-bg: #272115; --wg-warn: #9e6a03; --wg-error: #ff7b72; --wg-focus: #f0883e; color-scheme: dark; }
}
a { color: var(--wg-link); }
form { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin: .75rem 0; }
label { flex-basis: 100%; font-weight: 600; }
input { flex: 1; min-width: 12rem; padding: .45rem .6rem; font: inherit; color: inherit; background: var(--wg-bg); border: 1px solid var(--wg-border); border-radius: 6px; }
button { padding: .45rem .9rem; font: inherit; border-radius: 6px; border: 1px solid var(--wg-accent); background: var(--wg-accent); color: #fff; cursor: pointer; }
button.secondary { background: var(--wg-bg); color: var(--wg-link); }
button:disabled { opacity: .6; cursor: default; }
:focus-visible { outline: 3px solid var(--wg-focus); outline-offset: 2px; }
.hits { padding-left: 1.2rem; } .hits small { display: block; color: var(--wg-muted); }
.turn { border-top: 1px solid var(--wg-line); padding: .5rem 0; }
.question { font-weight: 600; margin: .25rem 0; }
.answer { white-space: pre-wrap; margin: .25rem 0; }
.provisional, .confidence, .status { color: var(--wg-muted); }
.confidence { font-size: .9em; margin: .25rem 0; }
.citations { padding-left: 1.6rem; margin: .25rem 0; }
.noanswer { background: var(--wg-warn-bg); border: 1px solid var(--wg-warn); border-radius: 6px; padding: .5rem .75rem; }
.error { color: var(--wg-error); }
.status { min-height: 1.5em; font-size: .9em; }
[hidden] { display: none; }
.rate { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin: .25rem 0; font-size: .9em; }
.rate button { padding: .2rem .6rem; } .rate [aria-pressed="true"] { background: var(--wg-accent); color: #fff; }
.rate textarea { flex-basis: 100%; min-height: 3.5rem; font: inherit; color: inherit; background: var(--wg-bg); border: 1px solid var(--wg-border); border-radius: 6px; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`;

// STRINGS is every text the widget itself shows or announces, in English
// and Chinese (uiLanguage picks one). A gate's error messages are shown
// as the gate wrote them; a no-answer's reason is translated by its code.
const STRINGS = {
  en: {
    search: "Search the docs", searchButton: "Search", noPages: "No pages found.", untitled: "Untitled page",
    askRegion: "Ask the docs", question: "Ask a question", askButton: "Ask", reset: "New conversation",
    resetDone: "New conversation.", asking: "Asking…", answerLog: "Answer as it arrives",
    stages: { retrieving: "Searching the docs…", in_scope: (n) => `Reading ${n} passages in scope…`, generating: "Writing the answer…" },
    confidence: (level) => `Confidence: ${level}`, levels: { high: "high", medium: "medium", low: "low" },
    answered: (n) => `Answered with ${n} citation${n === 1 ? "" : "s"}.`, citation: (n) => `citation ${n}`, sources: "Sources",
    noAnswer: "No answer was found in the docs.", noAnswerStatus: "No answer found.", reasons: {},
    report: "Report this gap", reported: "Thank you: the gap was reported to the docs team.",
    reportFailed: (why) => `Could not report the gap: ${why}`, gateAnswered: (s) => `The gate answered ${s}.`,
    rate: "Was this answer helpful?", helpful: "Helpful", notHelpful: "Not helpful", rated: "Thank you for rating this answer.",
    problem: "Report a problem", problemLabel: "What is wrong with this answer?", send: "Send report",
    problemSent: "Thank you: the problem was reported to the docs team.", feedbackFailed: (why) => `Could not send feedback: ${why}`,
    restored: (n) => `Conversation restored (${n} answer${n === 1 ? "" : "s"}).`,
  },
  zh: {
    search: "搜索文档", searchButton: "搜索", noPages: "没有找到页面。", untitled: "无标题页面",
    askRegion: "向文档提问", question: "输入问题", askButton: "提问", reset: "新对话",
    resetDone: "已开始新对话。", asking: "正在提问…", answerLog: "正在生成的回答",
    stages: { retrieving: "正在检索文档…", in_scope: (n) => `正在阅读范围内的 ${n} 个段落…`, generating: "正在撰写回答…" },
    confidence: (level) => `可信度：${level}`, levels: { high: "高", medium: "中", low: "低" },
    answered: (n) => `已回答，引用了 ${n} 个来源。`, citation: (n) => `引用 ${n}`, sources: "来源",
    noAnswer: "文档中没有找到答案。", noAnswerStatus: "没有找到答案。",
    reasons: {
      no_evidence: "所请求的范围内没有与这个问题相关的文档。",
      empty_response: "知识库中没有能回答这个问题的内容。",
      uncited_answer: "无法给出有引用支持的回答，因此不显示回答。",
      unsupported_answer: "生成的回答中被所引文档支持的部分太少，因此不显示回答。",
    },
    report: "报告文档缺漏", reported: "谢谢：已将这个缺漏报告给文档团队。",
    reportFailed: (why) => `无法报告缺漏：${why}`, gateAnswered: (s) => `网关返回了 ${s}。`,
    rate: "这个回答有帮助吗？", helpful: "有帮助", notHelpful: "没有帮助", rated: "感谢你评价这个回答。",
    problem: "报告问题", problemLabel: "这个回答有什么问题？", send: "发送报告",
    problemSent: "谢谢：已将问题报告给文档团队。", feedbackFailed: (why) => `无法发送反馈：${why}`,
    restored: (n) => `已恢复对话（${n} 个回答）。`,
  },
};

// uiLanguage is the UI's language tag and its strings: the element's lang,
// else the page's <html lang>, else the browser's; Chinese for zh and
// zh-*, English otherwise.
function uiLanguage(host) {
  const tag = host.getAttribute("lang") || document.documentElement.lang || navigator.language || "en";
  return /^zh(-|$)/i.test(tag) ? { tag, t: STRINGS.zh } : { tag: /^en(-|$)/i.test(tag) ? tag : "en", t: STRINGS.en };
}

// sheet is STYLE as a constructed stylesheet, which a page's style-src does
// not govern (an inline <style> would need 'unsafe-inline'); null in a
// browser without constructable stylesheets, which gets the <style>.
const sheet = (() => {
  try {
    const s = new CSSStyleSheet();
    s.replaceSync(STYLE);
    return "adoptedStyleSheets" in ShadowRoot.prototype ? s : null;
  } catch {
    return null;
  }
})();

// el builds an element; text is set with textContent, never parsed as HTML.
function el(tag, attrs = {}, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

// fencedRanges lists the [start, end) offsets of text's fenced code blocks
// (a line of ``` or ~~~ after at most 3 spaces opens one, the next such
// line of the same fence closes it, or the text's end): "[n]" in them is
// code, as the gate reads it.
function fencedRanges(text) {
  const ranges = [];
  let open = null;
  for (const m of text.matchAll(/^ {0,3}(```|~~~).*$/gm)) {
    if (open === null) open = m;
    else if (m[1] === open[1]) {
      ranges.push([open.index, m.index + m[0].length]);
      open = null;
    }
  }
  if (open !== null) ranges.push([open.index, text.length]);
  return ranges;
}

// unsafeURLChars are characters no link needs raw: controls, spaces (also
// the Unicode ones and invisible format characters a parser may skip),
// backslashes (read as "/"), quotes and angle brackets.
const unsafeURLChars = /[\u0000-\u0020\u007f-\u00a0\u00ad\u1680\u180e\u2000-\u200f\u2028-\u202f\u205f-\u206f\u3000\ufeff\\"'<>`]/;

// safeHref is where a hit or citation may link, or null: an absolute
// http(s) URL with a host, or a path of the docs site (not "//host"),
// resolved under docs-base, the result again http(s). javascript:, data:
// and every other scheme are shown as text, never as a link. The gate
// drops such URLs already (README "Safe URLs"); the widget does not rely
// on it.
function safeHref(url, anchor, base) {
  if (typeof url !== "string" || url === "" || unsafeURLChars.test(url)) return null;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url);
  if (scheme ? !/^https?:\/\/[^/?#@]+([/?#]|$)/i.test(url) : url.startsWith("//")) return null;
  let u;
  try {
    u = new URL(docsURL(url, base), location.origin);
  } catch {
    return null;
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return null;
  if (anchor) u.hash = anchor;
  return u.href;
}

// docsURL is where a citation's url points: an absolute url as it is, a
// site path under docs-base's own path (a docs site served under /docs/
// keeps it), resolved by the caller against this page's origin otherwise.
function docsURL(url, base) {
  if (!base || /^[a-z][a-z0-9+.-]*:/i.test(url)) return url;
  const b = new URL(base, location.origin);
  const rel = url.startsWith("/") ? url.slice(1) : url;
  return new URL(rel, b.href.endsWith("/") ? b.href : b.href + "/").href;
}

// randomKey is an idempotencyKey: anonymous readers share one caller at the
// gate, so their keys must not collide.
function randomKey() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

// sha256Hex is the hex SHA-256 of text, as a session's history names a
// question it does not show (null where crypto.subtle is not offered:
// pages not on https or localhost).
async function sha256Hex(text) {
  if (!crypto.subtle) return null;
  const d = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(d), (x) => x.toString(16).padStart(2, "0")).join("");
}

// readSSE yields {event, data} from a text/event-stream body. EventSource
// cannot POST, so the stream is parsed here; comments (": keep-alive") are
// skipped.
async function* readSSE(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buf += value.replace(/\r\n?/g, "\n");
    let cut;
    while ((cut = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, cut);
      buf = buf.slice(cut + 2);
      const ev = parseEvent(block);
      if (ev) yield ev;
    }
  }
}

function parseEvent(block) {
  let event = "message";
  const data = [];
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) continue;
    const i = line.indexOf(":");
    const field = i < 0 ? line : line.slice(0, i);
    const value = i < 0 ? "" : line.slice(i + 1).replace(/^ /, "");
    if (field === "event") event = value;
    if (field === "data") data.push(value);
  }
  if (!data.length) return null;
  return { event, data: JSON.parse(data.join("\n")) };
}

// feedbackAction is a result's enabled create_feedback action, if any.
function feedbackAction(r) {
  return (r.actions || []).find((a) => a.type === "create_feedback" && a.enabled);
}

// errorMessage turns a protocol (or Meilisearch-shaped) error body into text.
function errorMessage(body, status, t = STRINGS.en) {
  const e = body && (body.error || body);
  return (e && e.message) || t.gateAnswered(status);
}

class WikigateAsk extends HTMLElement {
  constructor() {
    super();
    // {id, token, questions, rated}: follow-ups are turns of one session;
    // questions asked and ratings given, kept with it for a restore.
    this.session = null;
    this.busy = false;
  }

  get gate() { return (this.getAttribute("gate") || location.origin).replace(/\/+$/, ""); }
  get page() { return this.getAttribute("page"); }

  connectedCallback() {
    if (this.shadowRoot) return;
    const root = this.attachShadow({ mode: "open" });
    if (sheet) root.adoptedStyleSheets = [sheet];
    else root.append(el("style", {}, STYLE));
    ({ tag: this.uiLang, t: this.t } = uiLanguage(this));
    root.append(this.buildSearch(), this.buildAsk());
    this.restore();
  }

  get storeKey() { return `wikigate-ask ${this.gate} ${this.page || ""}`; }

  // save keeps the session in this tab's sessionStorage (or forgets it);
  // without storage a reload simply starts a new conversation.
  save() {
    try {
      if (this.session) sessionStorage.setItem(this.storeKey, JSON.stringify(this.session));
      else sessionStorage.removeItem(this.storeKey);
    } catch { /* storage disabled */ }
  }

  // restore shows the saved session's conversation after a reload, read
  // from its history; a session the gate refuses (expired, ended) is
  // forgotten. The history shows a question as its SHA-256 unless the gate
  // logs questions: the widget's own copy stands in for it.
  async restore() {
    let s;
    try {
      s = JSON.parse(sessionStorage.getItem(this.storeKey));
    } catch { /* storage disabled */ }
    if (!s?.id || !s.token) return;
    try {
      const res = await fetch(`${this.gate}/answer/sessions/${encodeURIComponent(s.id)}`, { headers: { "X-Session-Token": s.token } });
      if (!res.ok) {
        if (res.status < 500) this.save(); // this.session is null: forget it
        return;
      }
      const h = await res.json();
      if (this.session || this.turns.children.length) return; // the reader asked meanwhile
      this.session = { questions: [], rated: {}, ...s };
      const qs = this.session.questions, byHash = {};
      for (const q of qs) byHash[await sha256Hex(q)] = q;
      h.turns.forEach((ht, i) => {
        const q = ht.question || byHash[ht.questionSha256] || qs[qs.length - h.turns.length + i] || "";
        this.showResult(this.newTurn(q), ht);
      });
      this.status.textContent = this.t.restored(h.turns.length);
    } catch { /* the gate is unreachable: nothing to restore */ }
  }

  buildSearch() {
    const t = this.t;
    const wrap = el("section", { "aria-label": t.search, lang: this.uiLang });
    const form = el("form", { role: "search", part: "search" });
    const input = el("input", { id: "wg-search", type: "search", name: "q", autocomplete: "off" });
    form.append(el("label", { for: "wg-search" }, t.search), input, el("button", { type: "submit" }, t.searchButton));
    this.hits = el("ol", { class: "hits", "aria-live": "polite" });
    form.addEventListener("submit", (e) => { e.preventDefault(); this.search(input.value.trim()); });
    wrap.append(form, this.hits);
    return wrap;
  }

  buildAsk() {
    const t = this.t;
    const wrap = el("section", { "aria-label": t.askRegion, lang: this.uiLang });
    const form = el("form", { part: "ask" });
    this.input = el("input", { id: "wg-question", name: "question", autocomplete: "off", "aria-describedby": "wg-status" });
    this.askButton = el("button", { type: "submit" }, t.askButton);
    const reset = el("button", { type: "button", class: "secondary" }, t.reset);
    form.append(el("label", { for: "wg-question" }, t.question), this.input, this.askButton, reset);
    this.status = el("p", { id: "wg-status", class: "status", role: "status" });
    this.turns = el("div", { class: "turns" });
    // log: the streamed sentences for a screen reader, each announced as it
    // arrives (the answer itself is not live: the result that replaces it
    // would be read a second time).
    this.log = el("div", { class: "sr-only", role: "log", "aria-live": "polite", "aria-label": t.answerLog });
    form.addEventListener("submit", (e) => { e.preventDefault(); this.ask(this.input.value.trim()); });
    reset.addEventListener("click", () => this.resetConversation());
    wrap.append(form, this.status, this.log, this.turns);
    return wrap;
  }

  resetConversation() {
    this.session = null;
    this.save();
    this.turns.replaceChildren();
    this.status.textContent = this.t.resetDone;
    this.input.focus();
  }

  async post(path, body, headers = {}) {
    return fetch(this.gate + path, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
  }

  withPage(body) {
    return this.page ? { ...body, page: { url: this.page } } : body;
  }

  async search(q) {
    if (!q) return;
    this.hits.setAttribute("aria-busy", "true");
    try {
      const res = await this.post("/answer/search", this.withPage({ question: q, limit: 8 }));
      const body = await res.json();
      if (!res.ok) throw new Error(errorMessage(body, res.status, this.t));
      this.renderHits(body.hits || []);
    } catch (err) {
      this.hits.replaceChildren(el("li", { class: "error" }, err.message));
    } finally {
      this.hits.setAttribute("aria-busy", "false");
    }
  }

  renderHits(hits) {
    if (!hits.length) {
      this.hits.replaceChildren(el("li", {}, this.t.noPages));
      return;
    }
    this.hits.replaceChildren(...hits.map((h) => {
      const li = el("li");
      li.append(this.pageLink(h), el("small", {}, h.snippet || ""));
      return li;
    }));
  }

  // link is where a citation or hit points: the page URL plus its anchor,
  // resolved against docs-base (relative URLs are the docs site's paths);
  // null when it has no url, or one that is not safe (safeHref).
  link(c) {
    return safeHref(c.url, c.anchor, this.getAttribute("docs-base"));
  }

  // pageLink is a hit's or citation's title as a link to its page, or as
  // text when it has no safe link. rel: the docs page is not the opener
  // of, and sends no referrer to, a page on another site.
  pageLink(c) {
    const text = c.title || c.path || c.url || this.t.untitled;
    const href = this.link(c);
    return href ? el("a", { href, rel: "noopener noreferrer" }, text) : el("span", { class: "nolink" }, text);
  }

  // ask streams one answer: a turn of the session, created on the first
  // question so follow-ups share its context.
  async ask(question) {
    if (!question || this.busy) return;
    this.busy = true;
    this.askButton.disabled = true;
    const turn = this.newTurn(question);
    try {
      const res = await this.openStream(question);
      const inSession = this.session;
      await this.consume(res, turn);
      if (inSession && turn.done) {
        inSession.questions = [...inSession.questions, question].slice(-50);
        this.save();
      }
      this.input.value = "";
    } catch (err) {
      this.showError(turn, err.message);
    } finally {
      this.busy = false;
      this.askButton.disabled = false;
      this.input.focus(); // ready for a follow-up
    }
  }

  async openStream(question) {
    const sse = { Accept: "text/event-stream" };
    if (!this.session) await this.startSession();
    if (this.session) {
      const path = `/answer/sessions/${encodeURIComponent(this.session.id)}/turns`;
      const res = await this.post(path, { question }, { ...sse, "X-Session-Token": this.session.token });
      if (res.status !== 403 && res.status !== 410) return res;
      this.session = null; // expired or ended: ask on, without the history
      this.save();
    }
    return this.post("/answer/ask", this.withPage({ question }), sse);
  }

  async startSession() {
    try {
      const res = await this.post("/answer/sessions", this.withPage({}));
      if (!res.ok) return; // e.g. the anonymous session budget: ask without one
      const s = await res.json();
      this.session = { id: s.sessionId, token: s.sessionToken, questions: [], rated: {} };
      this.save();
    } catch {
      this.session = null;
    }
  }

  newTurn(question) {
    const article = el("article", { class: "turn", tabindex: "-1" });
    const answer = el("div", { class: "answer", "aria-busy": "true", part: "answer" });
    article.append(el("p", { class: "question" }, question), answer);
    this.turns.append(article);
    this.log.replaceChildren();
    this.status.textContent = this.t.asking;
    return { article, answer, question, provisional: null };
  }

  async consume(res, turn) {
    const type = res.headers.get("Content-Type") || "";
    if (!type.startsWith("text/event-stream")) {
      const body = await res.json().catch(() => null);
      throw new Error(errorMessage(body, res.status));
    }
    for await (const { event, data } of readSSE(res.body)) {
      if (event === "status") this.status.textContent = this.stageText(data);
      if (event === "delta") this.appendDelta(turn, data.text);
      if (event === "result") this.showResult(turn, data);
      if (event === "error") throw new Error(errorMessage(data, 500, this.t));
    }
  }

  // stageText is a status event in the UI's language; a stage the widget
  // does not know is shown as the gate wrote it.
  stageText(data) {
    const s = this.t.stages[data.stage];
    if (typeof s === "function") return data.chunks === undefined ? data.message : s(data.chunks);
    return s || data.message || data.stage;
  }

  // Deltas are provisional (README "Streaming answers"): shown as they
  // come, replaced by result.answer.
  appendDelta(turn, text) {
    if (!turn.provisional) {
      turn.provisional = el("span", { class: "provisional" });
      turn.answer.append(turn.provisional);
    }
    turn.provisional.append(document.createTextNode(text));
    this.log.append(el("p", {}, text));
  }

  // showResult shows an AnswerResult, or a turn of a session's history
  // (which has no confidence).
  showResult(turn, r) {
    turn.done = true;
    turn.answer.replaceChildren();
    turn.answer.setAttribute("aria-busy", "false");
    if (r.noAnswerReason) {
      this.showNoAnswer(turn, r);
      return;
    }
    turn.answer.append(...this.answerNodes(r.answer, r.citations.length));
    const t = this.t;
    if (r.confidence) turn.article.append(el("p", { class: "confidence" }, t.confidence(t.levels[r.confidence] || r.confidence)));
    turn.article.append(this.citationList(r.citations));
    const action = feedbackAction(r);
    if (action && turn.question) turn.article.append(this.rating(turn, r, action));
    this.status.textContent = t.answered(r.citations.length);
  }

  // rating offers "helpful", "not helpful" and "report a problem" (a
  // not-helpful rating with a comment) on an answer. The body carries what
  // the action's dedupeKey covers (qa_answer, the question, the cited
  // paths, the page), so every rating of this answer merges into one
  // record; a retry reuses its idempotencyKey.
  rating(turn, r, action) {
    const t = this.t, n = this.turns.children.length;
    const box = el("div", { class: "rate", role: "group", "aria-label": t.rate });
    const note = el("span", { role: "status", tabindex: "-1" });
    const rated = this.session?.rated || {};
    const keys = {};
    const body = (rating, comment) => ({
      eventType: "qa_answer", question: turn.question, citations: r.citations.map((c) => ({ path: c.path })), rating, ...(comment && { comment }),
    });
    const send = async (rating, comment, key) => {
      try {
        await this.sendFeedback(action, { ...body(rating, comment), idempotencyKey: key });
        return true;
      } catch (err) {
        note.textContent = t.feedbackFailed(err.message);
        return false;
      }
    };
    const buttons = [["helpful", t.helpful], ["not_helpful", t.notHelpful]].map(([rating, label]) => {
      const b = el("button", { type: "button", class: "secondary", "aria-pressed": String(rated[action.dedupeKey] === rating) }, label);
      b.addEventListener("click", async () => {
        if (box.dataset.busy || rated[action.dedupeKey]) return;
        box.dataset.busy = "1";
        if (await send(rating, "", (keys[rating] ||= randomKey()))) {
          b.setAttribute("aria-pressed", "true");
          note.textContent = t.rated;
          rated[action.dedupeKey] = rating;
          this.save();
        }
        delete box.dataset.busy;
      });
      return b;
    });
    const form = el("form", { id: `wg-p${n}`, hidden: "" });
    const text = el("textarea", { id: `wg-p${n}-text`, required: "", maxlength: "4000" });
    form.append(el("label", { for: text.id }, t.problemLabel), text, el("button", { type: "submit" }, t.send));
    const toggle = el("button", { type: "button", class: "secondary", "aria-expanded": "false", "aria-controls": form.id }, t.problem);
    toggle.addEventListener("click", () => {
      const open = form.hidden;
      form.hidden = !open;
      toggle.setAttribute("aria-expanded", String(open));
      if (open) text.focus();
    });
    let sent = null;
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const comment = text.value.trim();
      if (!comment) return;
      if (sent?.comment !== comment) sent = { comment, key: randomKey() };
      if (await send("not_helpful", comment, sent.key)) {
        note.textContent = t.problemSent;
        form.remove();
        toggle.remove();
        note.focus(); // the form is gone: focus what replaced it
      }
    });
    box.append(el("span", {}, t.rate), ...buttons, toggle, form, note);
    return box;
  }

  // sendFeedback posts body to the action's route (the people's feedback
  // route by default) and returns the record; the page hears of it as a
  // wikigate-feedback event.
  async sendFeedback(action, body) {
    const res = await this.post(action.endpoint || "/answer/feedback", this.withPage(body));
    const out = await res.json();
    if (!res.ok) throw new Error(errorMessage(out, res.status, this.t));
    this.dispatchEvent(new CustomEvent("wikigate-feedback", { detail: { action, record: out.record } }));
    return out.record;
  }

  // answerNodes renders "[n]" references as links to citation n; the rest
  // stays text. A reference is what the gate numbers as one (README
  // "Numbering"): "[n]" not glued to a word before it ("items[1]" is code)
  // nor to a "(" after it ("[1](x)" is a link), outside fenced code blocks.
  answerNodes(text, count) {
    const nodes = [];
    const code = fencedRanges(text);
    let last = 0;
    for (const m of text.matchAll(/(?<![\p{L}\p{N}_])\[(\d+)\](?!\()/gu)) {
      const n = Number(m[1]);
      if (n < 1 || n > count || code.some(([a, b]) => m.index >= a && m.index < b)) continue;
      nodes.push(document.createTextNode(text.slice(last, m.index)));
      const ref = el("a", { href: this.turnCiteId(n, true), class: "ref", "aria-label": this.t.citation(n) }, `[${n}]`);
      nodes.push(ref);
      last = m.index + m[0].length;
    }
    nodes.push(document.createTextNode(text.slice(last)));
    return nodes;
  }

  turnCiteId(n, hash) {
    const id = `wg-t${this.turns.children.length}-c${n}`;
    return hash ? `#${id}` : id;
  }

  citationList(citations) {
    const ol = el("ol", { class: "citations", "aria-label": this.t.sources });
    citations.forEach((c, i) => {
      const li = el("li", { id: this.turnCiteId(i + 1, false) });
      li.append(this.pageLink(c));
      ol.append(li);
    });
    return ol;
  }

  showNoAnswer(turn, r) {
    const box = el("div", { class: "noanswer" });
    const t = this.t, why = r.noAnswerReason;
    box.append(el("p", {}, t.reasons[why.reason] || why.message || t.noAnswer));
    const action = feedbackAction(r);
    if (action && turn.question) box.append(this.reportButton(turn.question, action));
    turn.answer.append(box);
    this.status.textContent = t.noAnswerStatus;
  }

  // reportButton files the gap at the action's endpoint. The body carries
  // what the action's dedupeKey was computed from (event type, question,
  // page), so the record merges with every other report of the same gap.
  reportButton(question, action) {
    const t = this.t;
    const button = el("button", { type: "button", class: "secondary" }, t.report);
    const key = randomKey(); // one key per gap: a retry is not a second report
    button.addEventListener("click", async () => {
      button.disabled = true;
      const note = el("p", { tabindex: "-1", role: "status" });
      try {
        await this.sendFeedback(action, { eventType: "qa_no_answer", question, idempotencyKey: key });
        note.textContent = t.reported;
        button.replaceWith(note);
      } catch (err) {
        note.textContent = t.reportFailed(err.message);
        note.className = "error";
        button.disabled = false;
        button.after(note);
      }
      note.focus(); // the button may be gone: move focus to what replaced it
    });
    return button;
  }

  showError(turn, message) {
    turn.answer.replaceChildren(el("p", { class: "error", role: "alert" }, message));
    turn.answer.setAttribute("aria-busy", "false");
    this.status.textContent = "";
  }
}

if (!customElements.get("wikigate-ask")) customElements.define("wikigate-ask", WikigateAsk);

export { WikigateAsk, readSSE, STRINGS };
