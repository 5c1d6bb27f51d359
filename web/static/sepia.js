// SEPIA web tool: plain JavaScript, no framework. Each part starts only when its page has the elements.
"use strict";

const $ = (sel, root = document) => root.querySelector(sel);
const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));
const csrfToken = () => $('meta[name="csrf-token"]').content;

function flash(message, category = "info") {
  const box = $("#flashes");
  const div = document.createElement("div");
  div.className = `flash flash-${category}`;
  div.setAttribute("role", category === "error" ? "alert" : "status");
  div.textContent = message;
  box.replaceChildren(div);
}

async function send(url, { method = "POST", json } = {}) {
  const headers = { "X-CSRFToken": csrfToken(), Accept: "application/json" };
  const init = { method, headers, credentials: "same-origin" };
  if (json !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(json);
  }
  const response = await fetch(url, init);
  let data = {};
  try { data = await response.json(); } catch (_) { /* not JSON: an error page */ }
  if (!response.ok) throw new Error(data.error || `The server answered ${response.status}.`);
  return data;
}

const typing = (el) => el && (el.isContentEditable || /^(TEXTAREA|SELECT)$/.test(el.tagName)
  || (el.tagName === "INPUT" && !["checkbox", "radio", "button", "submit"].includes(el.type)));

// ------------------------------------------------------------ forms: unsaved changes, confirm, IME, counts

const dirtyForms = new Set();

function markDirty(form, dirty) {
  if (dirty) dirtyForms.add(form); else dirtyForms.delete(form);
  const note = $(".dirty-note", form);
  if (note) note.hidden = !dirty;
}

function setupForms() {
  for (const form of $$("form[data-guard]")) {
    form.addEventListener("input", () => markDirty(form, true));
    form.addEventListener("change", () => markDirty(form, true));
    form.addEventListener("submit", () => markDirty(form, false));
  }
  window.addEventListener("beforeunload", (event) => {
    if (dirtyForms.size) { event.preventDefault(); event.returnValue = ""; }
  });
  // A suggestion the nugget creator does not keep leaves the page; nothing was stored for it.
  for (const button of $$("[data-discard]")) {
    button.addEventListener("click", () => button.closest(button.dataset.discard).remove());
  }
  for (const form of $$("form[data-confirm]")) {
    form.addEventListener("submit", (event) => {
      if (!window.confirm(form.dataset.confirm)) event.preventDefault();
    });
  }
  // An Enter that confirms an IME candidate (Chinese, Japanese input) must not submit the form.
  document.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.isComposing || event.keyCode === 229)) event.stopImmediatePropagation();
  }, true);
  document.addEventListener("keypress", (event) => {
    if (event.key === "Enter" && event.isComposing) event.preventDefault();
  }, true);
  for (const field of $$("[data-count]")) {
    const out = $(field.dataset.count);
    const update = () => { out.textContent = Array.from(field.value.trim()).length; };
    field.addEventListener("input", update);
    update();
  }
  const langSelect = $("select[data-suggest-target]");
  if (langSelect) {
    const target = document.getElementById(langSelect.dataset.suggestTarget);
    langSelect.addEventListener("change", () => { target.placeholder = langSelect.selectedOptions[0].dataset.suggest; });
  }
}

// ------------------------------------------------------------ keyboard shortcuts

const shortcuts = {};

function setupShortcuts() {
  document.addEventListener("keydown", (event) => {
    if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "s") {
      const forms = $$("form[data-save-shortcut]");
      const form = forms.find((f) => f.contains(document.activeElement)) || forms[0];
      if (form) { event.preventDefault(); markDirty(form, false); form.requestSubmit(); }
      return;
    }
    if (event.key === "Escape" && shortcuts.Escape) { shortcuts.Escape(event); return; }
    if (event.ctrlKey || event.metaKey || event.altKey || event.isComposing || typing(event.target)) return;
    const action = shortcuts[event.key];
    if (action) { event.preventDefault(); action(event); }
  });
  const dialog = $("#shortcuts");
  const help = () => dialog && !dialog.open && dialog.showModal();
  shortcuts["?"] = help;
  for (const button of $$("[data-shortcuts-help]")) button.addEventListener("click", help);
}

// ------------------------------------------------------------ passage offsets

// Browsers count string positions in UTF-16 code units, Python in code points: a character outside
// the Basic Multilingual Plane (emoji, rare CJK ideographs) is two units here and one there.
const isHighSurrogate = (code) => code >= 0xd800 && code <= 0xdbff;
const codePoints = (text, units) => Array.from(text.slice(0, units)).length;

// The selection inside `container` as UTF-16 offsets into its text, trimmed of white space at both
// ends and widened so that it never cuts a surrogate pair; null when nothing there is selected.
function selectionOffsets(container, fullText) {
  const selection = window.getSelection();
  if (!selection || selection.rangeCount === 0 || selection.isCollapsed) return null;
  const range = selection.getRangeAt(0);
  if (!container.contains(range.commonAncestorContainer) && range.commonAncestorContainer !== container) {
    if (!range.intersectsNode(container)) return null;
  }
  const boundary = (node, offset, fallback) => {
    if (!container.contains(node)) return fallback;
    const probe = document.createRange();
    probe.setStart(container, 0);
    probe.setEnd(node, offset);
    return probe.toString().length;
  };
  let start = boundary(range.startContainer, range.startOffset, 0);
  let end = boundary(range.endContainer, range.endOffset, fullText.length);
  if (start > 0 && isHighSurrogate(fullText.charCodeAt(start - 1))) start -= 1;
  if (end > 0 && end < fullText.length && isHighSurrogate(fullText.charCodeAt(end - 1))) end += 1;
  while (start < end && /\s/.test(fullText[start])) start += 1;
  while (end > start && /\s/.test(fullText[end - 1])) end -= 1;
  if (start >= end) return null;
  return { start, end };
}

// ------------------------------------------------------------ topic page: search pane and answers

function setupTopicPage() {
  const pane = $("#search-pane");
  if (!pane) return;
  const results = $("#results");
  const docView = $("#document");
  const docText = $("#doc-text");
  const queryInput = $("#query");
  const answerForm = $("#answer-form");
  let lastQuery = "";
  let lastPage = 1;
  let current = null; // the open document: {docid, text}

  async function search(page = 1) {
    const query = queryInput.value.trim();
    if (!query) { queryInput.focus(); return; }
    lastQuery = query;
    lastPage = page;
    const url = `${pane.dataset.searchUrl}?${new URLSearchParams({ q: query, page })}`;
    results.setAttribute("aria-busy", "true");
    try {
      const response = await fetch(url, { headers: { Accept: "text/html" }, credentials: "same-origin" });
      if (!response.ok) throw new Error(`The search answered ${response.status}.`);
      // The fragment is rendered by the server with autoescaping; snippets are sanitised there.
      results.innerHTML = await response.text();
    } catch (error) {
      flash(error.message, "error");
    } finally {
      results.removeAttribute("aria-busy");
    }
    showResults();
  }

  function showResults() {
    docView.hidden = true;
    results.hidden = false;
  }

  async function openDocument(docid) {
    const url = pane.dataset.documentUrl.replace("DOCID", encodeURIComponent(docid))
      + (lastQuery ? `?${new URLSearchParams({ q: lastQuery })}` : "");
    let data;
    try { data = await send(url, { method: "GET" }); } catch (error) { flash(error.message, "error"); return; }
    current = { docid: data.docid, text: data.text };
    $("#doc-title").textContent = data.title || data.docid;
    $("#doc-docid").textContent = data.docid;
    $("#doc-date").textContent = data.date ? ` · ${data.date}` : "";  // an undated document: no dangling separator
    // Text nodes and <mark>s only, built from the stored text, so offsets map back exactly.
    // Hits come in code points; the DOM wants UTF-16, so walk the text by code point.
    const units = [0];
    for (const ch of data.text) units.push(units[units.length - 1] + ch.length);
    const nodes = [];
    let at = 0;
    for (const [start, end] of data.hits) {
      const s = units[start], e = units[end];
      if (s > at) nodes.push(document.createTextNode(data.text.slice(at, s)));
      const mark = document.createElement("mark");
      mark.textContent = data.text.slice(s, e);
      nodes.push(mark);
      at = e;
    }
    if (at < data.text.length) nodes.push(document.createTextNode(data.text.slice(at)));
    docText.replaceChildren(...nodes);
    markSaved();
    results.hidden = true;
    docView.hidden = false;
    docView.scrollIntoView({ block: "start" });
    const firstHit = $("mark", docText);
    if (firstHit) firstHit.scrollIntoView({ block: "center" });
  }

  // Saved passages of the open document are highlighted without touching its text nodes (the CSS
  // Custom Highlight API), so that selection offsets still map back to the stored text exactly.
  function markSaved() {
    if (!current || !window.CSS || !CSS.highlights) return;
    const ranges = [];
    for (const li of $$("#answer-list > li[data-docid]")) {
      if (li.dataset.docid !== current.docid || li.dataset.start === "") continue;
      const range = rangeOf(docText, current.text, Number(li.dataset.start), Number(li.dataset.end));
      if (range) ranges.push(range);
    }
    CSS.highlights.set("saved-passage", new Highlight(...ranges));
  }

  // The DOM range of code points [start, end) of the container's text.
  function rangeOf(container, text, start, end) {
    const units = (cp) => Array.from(text).slice(0, cp).join("").length;
    const locate = (unit) => {
      const walker = document.createTreeWalker(container, NodeFilter.SHOW_TEXT);
      let node, seen = 0;
      while ((node = walker.nextNode())) {
        if (unit <= seen + node.length) return [node, unit - seen];
        seen += node.length;
      }
      return null;
    };
    const from = locate(units(start)), to = locate(units(end));
    if (!from || !to) return null;
    const range = document.createRange();
    range.setStart(...from);
    range.setEnd(...to);
    return range;
  }

  // Saving the topic reloads the page: the search, its page and the open document come back.
  const stateKey = `sepia-search:${location.pathname}`;
  $("#topic-form").addEventListener("submit", () => {
    sessionStorage.setItem(stateKey, JSON.stringify({ q: lastQuery, page: lastPage, docid: current && current.docid }));
  });
  async function restoreSearch() {
    const saved = JSON.parse(sessionStorage.getItem(stateKey) || "null");
    sessionStorage.removeItem(stateKey);
    if (!saved || !saved.q) return;
    queryInput.value = saved.q;
    await search(saved.page || 1);
    if (saved.docid) await openDocument(saved.docid);
  }

  function takeSelection() {
    if (!current) return false;
    const offsets = selectionOffsets(docText, current.text);
    if (!offsets) return false;
    const text = current.text.slice(offsets.start, offsets.end);
    $("#answer-docid").value = current.docid;
    $("#answer-start").value = codePoints(current.text, offsets.start);
    $("#answer-end").value = codePoints(current.text, offsets.end);
    $("#answer-text").value = text;
    $("#answer-length").textContent = `${Array.from(text).length} characters selected`;
    // The captured passage shows where the eye is: bring the answer form into view if it is not.
    const box = $("#answer-text").getBoundingClientRect();
    if (box.top < 0 || box.bottom > window.innerHeight) answerForm.scrollIntoView({ block: "nearest", behavior: "smooth" });
    return true;
  }

  $("#search-form").addEventListener("submit", (event) => { event.preventDefault(); search(1); });
  $("#keyterm-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const terms = $("#key-terms").value.trim();
    if (!terms) { $("#key-terms").focus(); return; }
    try {
      const data = await send(pane.dataset.generateUrl, { json: { key_terms: terms } });
      queryInput.value = data.query;
      search(1);
    } catch (error) { flash(error.message, "error"); }
  });
  results.addEventListener("click", (event) => {
    const link = event.target.closest("[data-docid].hit-title");
    if (link) { event.preventDefault(); openDocument(link.dataset.docid); return; }
    const pager = event.target.closest("[data-page]");
    if (pager) search(Number(pager.dataset.page));
    const instead = event.target.closest("[data-query]");  // a zero-hit page's any-term search
    if (instead) { queryInput.value = instead.dataset.query; search(1); }
  });
  $("#back-to-results").addEventListener("click", showResults);
  docText.addEventListener("mouseup", takeSelection);
  docText.addEventListener("keyup", takeSelection);
  // Typing in the passage box breaks the link to the offsets: the server then finds the text itself.
  $("#answer-text").addEventListener("input", () => { $("#answer-start").value = ""; $("#answer-end").value = ""; });

  async function saveAnswer() {
    const payload = {
      docid: $("#answer-docid").value.trim(), start: $("#answer-start").value,
      end: $("#answer-end").value, text: $("#answer-text").value,
    };
    if (!payload.docid || !payload.text.trim()) { flash("Select a passage in a document first.", "error"); return; }
    try {
      const { answer } = await send(pane.closest("main").querySelector("#answers").dataset.addUrl, { json: payload });
      $("#answer-list").append(answerItem(answer));
      markSaved();
      $("#answer-count").textContent = $$("#answer-list > li").length;
      for (const id of ["#answer-docid", "#answer-start", "#answer-end", "#answer-text"]) $(id).value = "";
      $("#answer-length").textContent = "";
      window.getSelection().removeAllRanges();  // the saved passage is no longer the selection
      flash(`Answer text saved from ${answer.docid} [${answer.start}–${answer.end}).`, "success");
    } catch (error) { flash(error.message, "error"); }
  }

  function answerItem(answer) {
    const li = document.createElement("li");
    li.className = "answer new";
    li.id = `answer-${answer.id}`;
    Object.assign(li.dataset, { docid: answer.docid, start: answer.start ?? "", end: answer.end ?? "" });
    const quote = document.createElement("blockquote");
    quote.className = "cjk";
    quote.lang = docText.lang;
    quote.textContent = answer.text;
    const meta = document.createElement("div");
    meta.className = "meta small";
    const docid = document.createElement("span");
    docid.className = "docid";
    docid.textContent = answer.docid;
    const where = document.createElement("span");
    where.className = "muted";
    where.textContent = `[${answer.start}–${answer.end}) · ${Array.from(answer.text).length} chars`;
    const del = document.createElement("form");
    del.method = "post";
    del.action = answer.delete_url;
    del.className = "inline";
    del.dataset.ajaxDelete = "";
    const button = document.createElement("button");
    button.type = "submit";
    button.className = "link danger";
    button.textContent = "Delete";
    del.append(button);
    meta.append(docid, where, del);
    li.append(quote, meta);
    return li;
  }

  answerForm.addEventListener("submit", (event) => { event.preventDefault(); saveAnswer(); });
  $("#answer-list").addEventListener("submit", async (event) => {
    const form = event.target;
    if (!form.matches("[data-ajax-delete]")) return;
    event.preventDefault();
    if (!window.confirm("Delete this answer text?")) return;
    try {
      const data = await send(form.action);
      form.closest("li").remove();
      $("#answer-count").textContent = $$("#answer-list > li").length;
      flash(data.message, "success");
    } catch (error) { flash(error.message, "error"); }
  }, true);

  restoreSearch();
  shortcuts["/"] = () => { queryInput.focus(); queryInput.select(); };
  shortcuts.g = () => $("#keyterm-form").requestSubmit();
  shortcuts.a = () => { if (takeSelection() || $("#answer-text").value.trim()) saveAnswer(); };
  shortcuts.Escape = (event) => {
    if (!docView.hidden && !typing(event.target)) showResults();
  };
}

// ------------------------------------------------------------ nugget page: from selection to nugget

function setupNuggetPage() {
  const form = $("#nugget-form");
  if (!form) return;
  const textBox = $("#nugget-text");
  function takeSelection() {
    const selection = window.getSelection();
    if (!selection || selection.isCollapsed) return false;
    const item = selection.anchorNode && selection.anchorNode.parentElement
      && selection.anchorNode.parentElement.closest("[data-answer-id]");
    const text = selection.toString().trim();
    if (!item || !text) return false;
    textBox.value = text;
    textBox.dispatchEvent(new Event("input", { bubbles: true }));
    const box = $(`input[name="answer_ids"][value="${item.dataset.answerId}"]`, form);
    if (box) box.checked = true;
    return true;
  }
  $("#source-answers").addEventListener("mouseup", takeSelection);
  shortcuts.a = () => { takeSelection(); textBox.focus(); };
}

// ------------------------------------------------------------ vote page: move with j / k

function setupVotePage() {
  const boxes = $$('#vote-form input[name="vital"]:not(:disabled)');
  if (!boxes.length) return;
  const move = (step) => {
    const at = boxes.indexOf(document.activeElement);
    const next = boxes[Math.min(Math.max(at + step, 0), boxes.length - 1)];
    next.focus();
    $$(".vote.current").forEach((li) => li.classList.remove("current"));
    next.closest(".vote").classList.add("current");
  };
  shortcuts.j = () => move(1);
  shortcuts.k = () => move(-1);
}

// ---------------------------------------------------------------- times in the reader's zone

function showLocalTimes() {
  const format = new Intl.DateTimeFormat(undefined, {
    weekday: "short", year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit",
    timeZoneName: "short",
  });
  for (const time of $$("time[data-local]")) {
    time.title = time.textContent;  // the UTC time stays one hover away
    time.textContent = format.format(new Date(time.dateTime));
  }
}

// ------------------------------------------------------------ judging: one key per nugget or level

function setupJudging() {
  const form = $("#judge-form");
  if (!form) return;
  // Seconds on this item, sent with the save: measured here, so the server does no extra work.
  const shown = performance.now();
  form.addEventListener("submit", () => {
    form.elements.seconds.value = ((performance.now() - shown) / 1000).toFixed(1);
  });
  const submit = (action) => {
    const button = $(`button[value="${action}"]`, form);
    form.requestSubmit(button);
  };
  const marks = $$('input[name="nugget"], input[name="level"]', form);
  const relevance = form.dataset.judge === "ir4qa";
  for (let key = 0; key <= 9; key++) {
    shortcuts[String(key)] = () => {
      const box = relevance ? marks[key] : marks[(key + 9) % 10];  // nuggets 1..9 then 10 on 0
      if (!box) return;
      if (relevance) { box.checked = true; submit("save"); } else { box.checked = !box.checked; }
    };
  }
  shortcuts.n = () => { if (!relevance) { marks.forEach((b) => { b.checked = false; }); submit("save"); } };
  shortcuts.Enter = () => submit("save");
  shortcuts.s = () => submit("skip");
  shortcuts.c = () => $('input[name="comment"]', form).focus();
  shortcuts.b = () => { const back = $("#judge-back"); if (back) back.click(); };
}

// A new version of the guidelines: the save waits (the judgment stays in the form) until it is ticked.
function setupGuidelines() {
  for (const box of $$("input[data-guidelines-read]")) {
    const say = () => box.setCustomValidity(box.checked ? ""
      : "The guidelines changed: read them and tick this box, then save again (your judgment is kept).");
    box.addEventListener("change", say);
    say();
  }
  const panel = $("details#guidelines");
  if (panel) shortcuts.g = () => { panel.open = !panel.open; };
}

// ------------------------------------------------ citation support: one key per level, row by row

function setupSupport() {
  const form = $("#support-form");
  if (!form) return;
  const rows = $$("tr[data-citation]", form);
  let at = Math.max(rows.findIndex((row) => !$("input:checked", row)), 0);  // the first open citation
  const show = (index) => {
    at = Math.min(Math.max(index, 0), rows.length - 1);
    rows.forEach((row, i) => row.classList.toggle("current", i === at));
    rows[at].scrollIntoView({ block: "nearest" });
  };
  const choose = (value) => {
    $(`input[value="${value}"]`, rows[at]).checked = true;
    markDirty(form, true);
    show(at + 1);
  };
  shortcuts.f = () => choose("1");
  shortcuts.p = () => choose("0.5");
  shortcuts.n = () => choose("0");
  shortcuts.j = () => show(at + 1);
  shortcuts.k = () => show(at - 1);
  shortcuts.Enter = () => form.requestSubmit();
  rows.forEach((row, i) => row.addEventListener("click", () => show(i)));
  show(at);
}

// ------------------------------------------------ rubric grading: a digit grades the marked dimension

function setupRubric() {
  const form = $("#rubric-form");
  if (!form) return;
  const dimensions = $$("fieldset[data-dimension]", form);
  const open = (fieldset) => !$("input:checked", fieldset);
  let at = Math.max(dimensions.findIndex(open), 0);  // the first dimension without a grade
  const show = (index) => {
    at = Math.min(Math.max(index, 0), dimensions.length - 1);
    dimensions.forEach((fieldset, i) => fieldset.classList.toggle("current", i === at));
    dimensions[at].scrollIntoView({ block: "nearest" });
  };
  for (let digit = 0; digit <= 9; digit += 1) {
    shortcuts[String(digit)] = () => {
      const input = $(`input[value="${digit}"]`, dimensions[at]);
      if (!input) return;  // not on this dimension's scale
      input.checked = true;
      markDirty(form, true);
      const next = dimensions.findIndex((fieldset, i) => i > at && open(fieldset));
      show(next >= 0 ? next : at + 1);
    };
  }
  shortcuts.j = () => show(at + 1);
  shortcuts.k = () => show(at - 1);
  shortcuts.Enter = () => form.requestSubmit();
  dimensions.forEach((fieldset, i) => fieldset.addEventListener("click", () => show(i)));
  show(at);
}

document.addEventListener("DOMContentLoaded", () => {
  showLocalTimes();
  setupJudging();
  setupSupport();
  setupRubric();
  setupGuidelines();
  setupForms();
  setupShortcuts();
  setupTopicPage();
  setupNuggetPage();
  setupVotePage();
});
