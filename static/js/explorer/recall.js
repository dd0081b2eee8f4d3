/* The recall preview: what a message would recall, drawn on the graph and listed. Part of the memory explorer: see main.js. */

import { api } from "./api.js";
import { recallClear, recallForm, recallInput, recallResult, recallSubmit, root, state, URLS } from "./context.js";
import { centerOnMany, recalledEdges, redraw } from "./graph.js";
import { selectNode } from "./panel.js";
import { el, fmt, plural } from "./util.js";

// --- recall preview --------------------------------------------------------------------
// The recall form, wired once by start() in main.js.
export function wireRecall() {
  recallForm.addEventListener("submit", async function (event) {
    event.preventDefault();
    const message = recallInput.value.trim();
    if (!message) { recallInput.focus(); return; }
    recallSubmit.disabled = true;
    recallResult.replaceChildren(el("p", "loading", "Recalling…"));
    let record;
    try {
      record = await api("POST", URLS.recall, { message: message });
    } catch (err) {
      recallResult.replaceChildren(el("p", "msg err", "Couldn't run a recall: " + err.detail));
      recallSubmit.disabled = false;
      return;
    }
    recallSubmit.disabled = false;
    const fired = record.fired || [];
    state.recall = {
      fired: new Set(fired.map(function (f) { return String(f.id); })),
      crossed: new Set((record.crossed_edges || []).map(String)),
    };
    root.dataset.recallFired = String(state.recall.fired.size);
    root.dataset.recallCrossed = String(recalledEdges().length);
    recallClear.hidden = false;
    redraw();
    renderRecall(record);
    centerOnMany(Array.from(state.recall.fired).filter(function (k) { return state.graph && state.graph.hasNode(k); }));
  });

  recallClear.addEventListener("click", function () {
    state.recall = null;
    delete root.dataset.recallFired;
    delete root.dataset.recallCrossed;
    recallClear.hidden = true;
    recallResult.replaceChildren();
    redraw();
    recallInput.focus();
  });
}

export function renderRecall(record) {
  const fired = record.fired || [];
  const lines = record.memory_lines || [];
  const snippets = record.context_snippets || [];
  const out = document.createDocumentFragment();
  out.appendChild(el("p", "recall-summary", fired.length
    ? plural(fired.length, "thing comes", "things come") + " to mind · " + plural(lines.length, "memory", "memories") +
      " · " + plural(snippets.length, "snippet", "snippets")
    : "Nothing would be recalled for that message."));
  const cols = el("div", "recall-cols");
  if (fired.length) {
    const box = el("div");
    box.appendChild(el("h4", "", "Fired"));
    const ul = el("ul", "fired");
    fired.forEach(function (f) {
      const li = el("li");
      const b = el("button", "link", f.name);
      b.type = "button";
      b.addEventListener("click", function () { selectNode(String(f.id), { center: true }); });
      li.append(b, el("span", "muted", " " + f.kind + " · " + fmt(f.score, 2) + " · " + f.direction + " · hop " + f.hop));
      ul.appendChild(li);
    });
    box.appendChild(ul);
    cols.appendChild(box);
  }
  if (lines.length) {
    const box = el("div");
    box.appendChild(el("h4", "", "Memories"));
    const ul = el("ul", "memory-lines");
    lines.forEach(function (line) { ul.appendChild(el("li", "", line)); });
    box.appendChild(ul);
    cols.appendChild(box);
  }
  if (snippets.length) {
    const box = el("div");
    box.appendChild(el("h4", "", "In your words"));
    const ul = el("ul", "snippets");
    snippets.forEach(function (s) {
      const li = el("li");
      li.append(el("span", "node", s.node + ": "), el("q", "", s.text));
      ul.appendChild(li);
    });
    box.appendChild(ul);
    cols.appendChild(box);
  }
  out.appendChild(cols);
  recallResult.replaceChildren(out);
}
