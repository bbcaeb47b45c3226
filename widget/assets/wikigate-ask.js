// <wikigate-ask>: search and ask a wikigate gate from a docs page.
// One dependency-free ES module (README "On a docs site"). Attributes:
//   gate       the gate's base URL (default: this page's origin)
//   page       the docs page URL the reader is on (scopes answers like
//              /answer/ask's `page`; default: none, the public default)
//   docs-base  base URL for citation links, its path kept (https://x.com/docs/
//              makes /a/b https://x.com/docs/a/b; default: this page's origin)
// Server text is only ever set with textContent: answers and titles come
// from the wiki, and the page must not run what a wiki page contains. A
// hit or citation links only to an http(s) URL or a docs path (safeHref);
// the styles are a constructed stylesheet, so a page's Content-Security-
// Policy needs no 'unsafe-inline' for the widget (README "Safe URLs and
// the widget's Content-Security-Policy").

const STYLE = `
:host { display: block; font: 15px/1.5 system-ui, sans-serif; color: #1b1f24; max-width: 46rem; }
form { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin: .75rem 0; }
label { flex-basis: 100%; font-weight: 600; }
input { flex: 1; min-width: 12rem; padding: .45rem .6rem; font: inherit; border: 1px solid #8c959f; border-radius: 6px; }
button { padding: .45rem .9rem; font: inherit; border-radius: 6px; border: 1px solid #1f6feb; background: #1f6feb; color: #fff; cursor: pointer; }
button.secondary { background: #fff; color: #1f6feb; }
button:disabled { opacity: .6; cursor: default; }
:focus-visible { outline: 3px solid #fb8c00; outline-offset: 2px; }
.hits { padding-left: 1.2rem; } .hits small { display: block; color: #57606a; }
.turn { border-top: 1px solid #d0d7de; padding: .5rem 0; }
.question { font-weight: 600; margin: .25rem 0; }
.answer { white-space: pre-wrap; margin: .25rem 0; }
.provisional { color: #57606a; }
.confidence { font-size: .9em; color: #57606a; margin: .25rem 0; }
.citations { padding-left: 1.6rem; margin: .25rem 0; }
.noanswer { background: #fff8c5; border: 1px solid #d4a72c; border-radius: 6px; padding: .5rem .75rem; }
.error { color: #cf222e; }
.status { min-height: 1.5em; color: #57606a; font-size: .9em; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`;

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

// errorMessage turns a protocol (or Meilisearch-shaped) error body into text.
function errorMessage(body, status) {
  const e = body && (body.error || body);
  return (e && e.message) || `The gate answered ${status}.`;
}

class WikigateAsk extends HTMLElement {
  constructor() {
    super();
    this.session = null; // {id, token}: follow-ups are turns of one session
    this.busy = false;
  }

  get gate() { return (this.getAttribute("gate") || location.origin).replace(/\/+$/, ""); }
  get page() { return this.getAttribute("page"); }

  connectedCallback() {
    if (this.shadowRoot) return;
    const root = this.attachShadow({ mode: "open" });
    if (sheet) root.adoptedStyleSheets = [sheet];
    else root.append(el("style", {}, STYLE));
    root.append(this.buildSearch(), this.buildAsk());
  }

  buildSearch() {
    const wrap = el("section", { "aria-label": "Search the docs" });
    const form = el("form", { role: "search", part: "search" });
    const input = el("input", { id: "wg-search", type: "search", name: "q", autocomplete: "off" });
    form.append(el("label", { for: "wg-search" }, "Search the docs"), input, el("button", { type: "submit" }, "Search"));
    this.hits = el("ol", { class: "hits", "aria-live": "polite" });
    form.addEventListener("submit", (e) => { e.preventDefault(); this.search(input.value.trim()); });
    wrap.append(form, this.hits);
    return wrap;
  }

  buildAsk() {
    const wrap = el("section", { "aria-label": "Ask the docs" });
    const form = el("form", { part: "ask" });
    this.input = el("input", { id: "wg-question", name: "question", autocomplete: "off", "aria-describedby": "wg-status" });
    this.askButton = el("button", { type: "submit" }, "Ask");
    const reset = el("button", { type: "button", class: "secondary" }, "New conversation");
    form.append(el("label", { for: "wg-question" }, "Ask a question"), this.input, this.askButton, reset);
    this.status = el("p", { id: "wg-status", class: "status", role: "status" });
    this.turns = el("div", { class: "turns" });
    form.addEventListener("submit", (e) => { e.preventDefault(); this.ask(this.input.value.trim()); });
    reset.addEventListener("click", () => this.resetConversation());
    wrap.append(form, this.status, this.turns);
    return wrap;
  }

  resetConversation() {
    this.session = null;
    this.turns.replaceChildren();
    this.status.textContent = "New conversation.";
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
      if (!res.ok) throw new Error(errorMessage(body, res.status));
      this.renderHits(body.hits || []);
    } catch (err) {
      this.hits.replaceChildren(el("li", { class: "error" }, err.message));
    } finally {
      this.hits.setAttribute("aria-busy", "false");
    }
  }

  renderHits(hits) {
    if (!hits.length) {
      this.hits.replaceChildren(el("li", {}, "No pages found."));
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
    const text = c.title || c.path || c.url || "Untitled page";
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
      await this.consume(res, turn);
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
    }
    return this.post("/answer/ask", this.withPage({ question }), sse);
  }

  async startSession() {
    try {
      const res = await this.post("/answer/sessions", this.withPage({}));
      if (!res.ok) return; // e.g. the anonymous session budget: ask without one
      const s = await res.json();
      this.session = { id: s.sessionId, token: s.sessionToken };
    } catch {
      this.session = null;
    }
  }

  newTurn(question) {
    const article = el("article", { class: "turn", tabindex: "-1" });
    const answer = el("div", { class: "answer", "aria-live": "polite", "aria-busy": "true", part: "answer" });
    article.append(el("p", { class: "question" }, question), answer);
    this.turns.append(article);
    this.status.textContent = "Asking…";
    return { article, answer, question, provisional: null };
  }

  async consume(res, turn) {
    const type = res.headers.get("Content-Type") || "";
    if (!type.startsWith("text/event-stream")) {
      const body = await res.json().catch(() => null);
      throw new Error(errorMessage(body, res.status));
    }
    for await (const { event, data } of readSSE(res.body)) {
      if (event === "status") this.status.textContent = data.message || data.stage;
      if (event === "delta") this.appendDelta(turn, data.text);
      if (event === "result") this.showResult(turn, data);
      if (event === "error") throw new Error(errorMessage(data, 500));
    }
  }

  // Deltas are provisional (README "Streaming answers"): shown as they
  // come, replaced by result.answer.
  appendDelta(turn, text) {
    if (!turn.provisional) {
      turn.provisional = el("span", { class: "provisional" });
      turn.answer.append(turn.provisional);
    }
    turn.provisional.append(document.createTextNode(text));
  }

  showResult(turn, r) {
    turn.answer.replaceChildren();
    turn.answer.setAttribute("aria-busy", "false");
    if (r.noAnswerReason) {
      this.showNoAnswer(turn, r);
      return;
    }
    turn.answer.append(...this.answerNodes(r.answer, r.citations.length));
    const conf = el("p", { class: "confidence" }, `Confidence: ${r.confidence}`);
    turn.article.append(conf, this.citationList(r.citations));
    this.status.textContent = `Answered with ${r.citations.length} citation${r.citations.length === 1 ? "" : "s"}.`;
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
      const ref = el("a", { href: this.turnCiteId(n, true), class: "ref", "aria-label": `citation ${n}` }, `[${n}]`);
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
    const ol = el("ol", { class: "citations", "aria-label": "Sources" });
    citations.forEach((c, i) => {
      const li = el("li", { id: this.turnCiteId(i + 1, false) });
      li.append(this.pageLink(c));
      ol.append(li);
    });
    return ol;
  }

  showNoAnswer(turn, r) {
    const box = el("div", { class: "noanswer" });
    box.append(el("p", {}, r.noAnswerReason.message || "No answer was found in the docs."));
    const action = (r.actions || []).find((a) => a.type === "create_feedback" && a.enabled);
    if (action) box.append(this.reportButton(turn.question, action));
    turn.answer.append(box);
    this.status.textContent = "No answer found.";
  }

  // reportButton files the gap at the action's endpoint. The body carries
  // what the action's dedupeKey was computed from (event type, question,
  // page), so the record merges with every other report of the same gap.
  reportButton(question, action) {
    const button = el("button", { type: "button", class: "secondary" }, "Report this gap");
    const key = randomKey(); // one key per gap: a retry is not a second report
    button.addEventListener("click", async () => {
      button.disabled = true;
      const note = el("p", { tabindex: "-1", role: "status" });
      try {
        const body = this.withPage({ eventType: "qa_no_answer", question, idempotencyKey: key });
        const res = await this.post(action.endpoint || "/answer/feedback", body);
        const out = await res.json();
        if (!res.ok) throw new Error(errorMessage(out, res.status));
        note.textContent = "Thank you: the gap was reported to the docs team.";
        this.dispatchEvent(new CustomEvent("wikigate-feedback", { detail: { action, record: out.record } }));
        button.replaceWith(note);
      } catch (err) {
        note.textContent = `Could not report the gap: ${err.message}`;
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

export { WikigateAsk, readSSE };
