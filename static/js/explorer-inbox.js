/* The merge inbox of the memory explorer (/memory/): names Pegasus could not place on its own,
   asked to their owner — "Is Bill the same person as William Smith?" — with both sides'
   memories in the user's own words, answered same / different / not sure, and undone.

   Talks to /api/v1/memory/inbox/… (docs/api.md) through the explorer's API helper
   (window.PegasusExplorerKit, from explorer.js). Safety as in explorer.js: everything from the
   server is set with textContent; no inline style or script (CSP). */
(function () {
  "use strict";
  const box = document.getElementById("inbox");
  const kit = window.PegasusExplorerKit;
  if (!box || !kit) return;
  const api = kit.api;
  const el = kit.el;

  const $ = function (id) { return document.getElementById(id); };
  const toggle = $("inbox-toggle");
  const badge = $("inbox-badge");
  const list = $("inbox-list");
  const statusLine = $("inbox-status");
  const retry = $("inbox-retry");
  const showPending = $("inbox-show-pending");
  const showSettled = $("inbox-show-settled");
  const ds = box.dataset;
  const PAGE_SIZE = 50;

  const state = { view: "pending", seq: 0, open: null };

  function url(template, id) {
    return template.replace("/0/", "/" + encodeURIComponent(String(id)) + "/");
  }

  // --- the badge -----------------------------------------------------------------------------
  function setCount(count) {
    ds.pendingCount = String(count);
    badge.textContent = String(count);
    badge.className = "inbox-badge" + (count ? " has-items" : "");
    toggle.setAttribute("aria-label", count
      ? "Who is who? " + kit.plural(count, "question", "questions") + " to answer"
      : "Who is who? No questions to answer");
    // The pending list stays on screen after an answer (with its Undo): keep its count true.
    if (state.view === "pending" && /\b(ready|empty)\b/.test(statusLine.className) && list.children.length) {
      setStatus("ready", count ? kit.plural(count, "question", "questions") + " still to answer" : "All answered — thank you.");
    }
  }

  async function refreshCount() {
    try {
      const page = await api("GET", ds.listUrl + "?page_size=1");
      setCount(page.count || 0);
    } catch (err) {
      badge.textContent = "!";
      badge.className = "inbox-badge error";
      toggle.setAttribute("aria-label", "Who is who? The questions could not be loaded");
    }
  }

  // --- opening, closing, views ---------------------------------------------------------------
  function setOpen(open) {
    box.hidden = !open;
    toggle.setAttribute("aria-expanded", open ? "true" : "false");
    if (open) { load(); $("inbox-title").focus(); }
  }

  toggle.addEventListener("click", function () { setOpen(box.hidden); });
  $("inbox-close").addEventListener("click", function () { setOpen(false); toggle.focus(); });
  box.addEventListener("keydown", function (event) {
    const dialog = document.getElementById("confirm-dialog");
    if (event.key === "Escape" && !(dialog && dialog.open)) {
      event.stopPropagation();
      setOpen(false);
      toggle.focus();
    }
  });
  retry.addEventListener("click", function () { load(); });

  function setView(view) {
    state.view = view;
    ds.view = view;
    showPending.setAttribute("aria-pressed", view === "pending" ? "true" : "false");
    showSettled.setAttribute("aria-pressed", view === "settled" ? "true" : "false");
    load();
  }
  showPending.addEventListener("click", function () { setView("pending"); });
  showSettled.addEventListener("click", function () { setView("settled"); });

  function setStatus(kind, text) {
    statusLine.className = "inbox-status " + kind;
    statusLine.textContent = text;
    retry.hidden = kind !== "error";
  }

  // --- the list --------------------------------------------------------------------------------
  async function load() {
    const seq = ++state.seq;
    box.setAttribute("aria-busy", "true");
    setStatus("loading", "Loading your questions…");
    if (list.dataset.view !== state.view) list.replaceChildren();  // another view's items
    list.dataset.view = state.view;
    let page;
    try {
      page = await api("GET", ds.listUrl + "?state=" + state.view + "&page_size=" + PAGE_SIZE);
    } catch (err) {
      if (seq !== state.seq) return;
      box.removeAttribute("aria-busy");
      setStatus("error", "Couldn't load your questions: " + err.detail);
      return;
    }
    if (seq !== state.seq) return;
    box.removeAttribute("aria-busy");
    const items = page.results || [];
    if (state.view === "pending") setCount(page.count || 0);
    list.replaceChildren();
    if (!items.length) {
      setStatus("empty", state.view === "pending"
        ? "Nothing to answer: every name has found its place."
        : "You have not answered any question yet.");
      return;
    }
    const more = (page.count || 0) - items.length;
    setStatus("ready", state.view === "pending"
      ? kit.plural(page.count, "question", "questions") + " to answer" + (more > 0 ? " (the newest " + items.length + " shown)" : "")
      : kit.plural(page.count, "answered question", "answered questions"));
    items.forEach(function (item, index) {
      const li = renderItem(item);
      list.appendChild(li);
      if (state.view === "pending" && index === 0) expand(li, item);
    });
  }

  // "Is <em>Bill</em> the same person as <em>William Smith</em> or <em>Robert Jones</em>?"
  function question(item) {
    const frag = document.createDocumentFragment();
    frag.append("Is ", el("em", "", item.entity.name), " the same " + item.noun + " as ");
    const names = item.candidates.map(function (c) { return c.name; });
    names.forEach(function (name, i) {
      if (i > 0) frag.append(i === names.length - 1 ? " or " : ", ");
      frag.append(el("em", "", name));
    });
    if (!names.length) frag.append("someone you know");
    frag.append("?");
    return frag;
  }

  function outcome(item) {
    switch (item.state) {
      case "same":
        return "You said it is the same " + item.noun + (item.merged_into ? ": merged into “" + item.merged_into.name + "”." : ".");
      case "different":
        return "You said " + item.entity.name + " is someone else: kept apart, and not asked again.";
      case "unsure":
        return "You weren't sure: a moderator will decide.";
      case "moderator":
        return "A moderator settled it (" + item.status + ").";
      default:
        return "";
    }
  }

  function renderItem(item) {
    const li = el("li", "inbox-item");
    li.dataset.id = String(item.id);
    li.dataset.state = item.state;
    const head = el("div", "inbox-item-head");
    const title = el("button", "inbox-question");
    title.type = "button";
    title.id = "inbox-q-" + item.id;
    title.setAttribute("aria-expanded", "false");
    title.setAttribute("aria-controls", "inbox-body-" + item.id);
    title.appendChild(question(item));
    title.addEventListener("click", function () {
      if (title.getAttribute("aria-expanded") === "true") collapse(li);
      else expand(li, item);
    });
    head.appendChild(title);
    li.appendChild(head);
    const body = el("div", "inbox-body");
    body.id = "inbox-body-" + item.id;
    body.hidden = true;
    li.appendChild(body);
    const msg = el("p", "msg");
    msg.setAttribute("role", "status");
    msg.tabIndex = -1;
    msg.hidden = true;
    li.appendChild(msg);
    if (item.state !== "pending") showOutcome(li, item, null);
    return li;
  }

  function collapse(li) {
    li.querySelector(".inbox-question").setAttribute("aria-expanded", "false");
    li.querySelector(".inbox-body").hidden = true;
  }

  async function expand(li, item) {
    const title = li.querySelector(".inbox-question");
    const body = li.querySelector(".inbox-body");
    title.setAttribute("aria-expanded", "true");
    body.hidden = false;
    body.replaceChildren(el("p", "inbox-loading", "Loading what you said…"));
    li.setAttribute("aria-busy", "true");
    let detail;
    try {
      detail = await api("GET", url(ds.itemUrl, item.id));
    } catch (err) {
      li.removeAttribute("aria-busy");
      const again = el("button", "secondary", "Try again");
      again.type = "button";
      again.addEventListener("click", function () { expand(li, item); });
      body.replaceChildren(el("p", "msg err", err.status === 404
        ? "This question no longer exists."
        : "Couldn't load this question: " + err.detail), again);
      return;
    }
    li.removeAttribute("aria-busy");
    renderDetail(li, detail);
  }

  // "alice -[HAS_FRIEND]-> Bill" → "alice · has friend · Bill"
  function memoryLine(text) {
    const m = /^(.*) -\[([A-Z0-9_]+)\]-> (.*)$/.exec(text);
    if (!m) return el("span", "inbox-line-text", text);
    const span = el("span", "inbox-line-text");
    span.append(el("strong", "", m[1]), el("span", "rel", " " + m[2].toLowerCase().replace(/_/g, " ") + " "),
      el("strong", "", m[3]));
    return span;
  }

  function side(s, role) {
    const col = el("section", "inbox-side " + role);
    const h = el("h4", "", s.name);
    if (role === "entity") h.appendChild(el("span", "badge", "just mentioned"));
    col.appendChild(h);
    if (!s.exists) {
      col.appendChild(el("p", "muted", "No longer in your memory (merged or forgotten since)."));
      return col;
    }
    const lines = s.lines || [];
    if (!lines.length) {
      col.appendChild(el("p", "muted", "Nothing remembered about it yet."));
      return col;
    }
    const ul = el("ul", "inbox-lines");
    lines.forEach(function (line) {
      const li = el("li", line.dormant ? "dormant" : "");
      li.appendChild(memoryLine(line.text));
      if (line.snippet) li.appendChild(el("q", "inbox-said", line.snippet));
      ul.appendChild(li);
    });
    col.appendChild(ul);
    if (s.more) col.appendChild(el("p", "muted small", "and " + kit.plural(s.more, "more memory", "more memories")));
    return col;
  }

  function renderDetail(li, d) {
    li.dataset.state = d.state;
    const body = li.querySelector(".inbox-body");
    const frag = document.createDocumentFragment();
    const sides = el("div", "inbox-sides");
    sides.appendChild(side(d.entity, "entity"));
    d.candidates.forEach(function (c) { sides.appendChild(side(c, "candidate")); });
    frag.appendChild(sides);
    if (d.state === "pending") {
      const actions = el("div", "inbox-actions");
      actions.setAttribute("role", "group");
      actions.setAttribute("aria-label", "Your answer");
      d.candidates.filter(function (c) { return c.exists && c.kind !== d.entity.kind; }).forEach(function (c) {
        actions.appendChild(el("span", "muted small", "“" + c.name + "” is filed as another kind (" +
          c.kind.toLowerCase() + "): give both the same kind in the graph to merge them."));
      });
      d.candidates.filter(function (c) { return c.exists && c.kind === d.entity.kind; }).forEach(function (c) {
        const same = el("button", "inbox-same", d.candidates.length > 1 ? "Same as " + c.name : "Same " + d.noun);
        same.type = "button";
        same.dataset.into = String(c.id);
        same.addEventListener("click", function () { answer(li, d, "same", c); });
        actions.appendChild(same);
      });
      const different = el("button", "secondary inbox-different", d.candidates.length > 1 ? "None of them" : "Different");
      different.type = "button";
      different.addEventListener("click", function () { answer(li, d, "different"); });
      const unsure = el("button", "secondary inbox-unsure", "Not sure");
      unsure.type = "button";
      unsure.addEventListener("click", function () { answer(li, d, "unsure"); });
      actions.append(different, unsure);
      frag.appendChild(actions);
      const after = d.staff_from ? new Date(d.staff_from) : null;
      frag.appendChild(el("p", "muted small", "Not sure? A moderator will look at it." +
        (after && !isNaN(after) ? " Left unanswered, it goes to a moderator on " +
          after.toLocaleDateString(undefined, { day: "numeric", month: "long", year: "numeric" }) + "." : "")));
    }
    body.replaceChildren(frag);
  }

  function showOutcome(li, item, flash) {
    li.dataset.state = item.state;
    const msg = li.querySelector(".msg");
    msg.replaceChildren();
    msg.className = "msg " + (flash && flash.error ? "err" : item.state === "pending" ? "pending" : "ok");
    msg.append(flash ? flash.text : outcome(item));
    if (item.can_undo) {
      const undo = el("button", "secondary inbox-undo", "Undo");
      undo.type = "button";
      undo.addEventListener("click", function () { takeBack(li, item, undo); });
      msg.append(" ", undo);
    }
    msg.hidden = false;
  }

  function busy(li, on) {
    li.querySelectorAll("button").forEach(function (b) {
      if (on) { b.dataset.wasDisabled = b.disabled ? "1" : ""; b.disabled = true; }
      else { b.disabled = b.dataset.wasDisabled === "1"; }
    });
    if (on) li.setAttribute("aria-busy", "true"); else li.removeAttribute("aria-busy");
  }

  async function answer(li, d, what, candidate) {
    const msg = li.querySelector(".msg");
    busy(li, true);
    msg.className = "msg pending";
    msg.textContent = what === "same" ? "Merging…" : "Saving your answer…";
    msg.hidden = false;
    const payload = { answer: what };
    if (candidate) payload.into = candidate.id;
    let result;
    try {
      result = await api("POST", url(ds.answerUrl, d.id), payload);
    } catch (err) {
      busy(li, false);
      msg.className = "msg err";
      msg.textContent = "That didn't work: " + err.detail;
      msg.focus();
      return;
    }
    busy(li, false);
    collapse(li);
    li.querySelector(".inbox-body").replaceChildren();
    showOutcome(li, result, null);
    li.querySelector(".msg").focus();
    refreshCount();
    if (what === "same") kit.graphChanged();
  }

  async function takeBack(li, item, button) {
    const msg = li.querySelector(".msg");
    busy(li, true);
    button.textContent = "Undoing…";
    let result;
    try {
      result = await api("POST", url(ds.undoUrl, item.id));
    } catch (err) {
      busy(li, false);
      button.textContent = "Undo";
      msg.className = "msg err";
      msg.replaceChildren("Couldn't undo it: " + err.detail);
      msg.focus();
      return;
    }
    busy(li, false);
    refreshCount();
    if (item.state === "same") kit.graphChanged();
    if (state.view === "settled") {
      // The question is open again: it leaves the settled list.
      const next = li.nextElementSibling || li.previousElementSibling;
      li.remove();
      setStatus(next ? "ready" : "empty", "Undone: “" + result.question + "” is open again under “To answer”.");
      (next ? next.querySelector("button") : showPending).focus();
      return;
    }
    const fresh = renderItem(result);
    li.replaceWith(fresh);
    showOutcome(fresh, result, { text: "Undone: the question is open again." });
    expand(fresh, result);
    fresh.querySelector(".msg").focus();
  }

  refreshCount();
})();
