/* Confirmations and the corrections (rename, aliases, kind, forget, merge, revert) through the API. Part of the memory explorer: see main.js. */

import { api } from "./api.js";
import { $, dialog, panel, root, state, URLS } from "./context.js";
import { loadGraph, nodeSize, redraw, summaryStatus, updateCounts } from "./graph.js";
import { clearSelection, renderPanel, section, selectNode, showMessage } from "./panel.js";
import { drawKindFilter, refreshSearch } from "./search.js";
import { el, fill, kindColor, plural } from "./util.js";

// --- confirmations ---------------------------------------------------------------------
export function confirmAction(text, okLabel) {
  return new Promise(function (resolve) {
    $("confirm-text").textContent = text;
    $("confirm-ok").textContent = okLabel || "Confirm";
    dialog.returnValue = "";
    dialog.addEventListener("close", function () { resolve(dialog.returnValue === "ok"); }, { once: true });
    dialog.showModal();
  });
}

// Disables the panel while a correction runs and says so in that section (a merge can
// take a few seconds: the merged names' memory keys are re-embedded).
export function busy(on, sectionName, text) {
  const p = on && sectionName && state.messages && state.messages[sectionName];
  if (p) { p.textContent = text || "Working…"; p.className = "msg pending"; p.hidden = false; }
  panel.querySelectorAll("button, input, select").forEach(function (c) {
    if (on) { c.dataset.wasDisabled = c.disabled ? "1" : ""; c.disabled = true; }
    else { c.disabled = c.dataset.wasDisabled === "1"; }
  });
  if (on) panel.setAttribute("aria-busy", "true"); else panel.removeAttribute("aria-busy");
}

export function failed(sectionName, err) {
  busy(false);
  const p = state.messages && state.messages[sectionName];
  if (p) { showMessage(p, err.detail || "That didn't work.", false); p.focus(); }
}

// --- corrections -----------------------------------------------------------------------
export async function patchNode(d, body, sectionName, successText) {
  busy(true, sectionName, "Saving…");
  let updated;
  try {
    updated = await api("PATCH", fill(URLS.node, d.id), body);
  } catch (err) { failed(sectionName, err); return; }
  const key = String(updated.id);
  const summary = state.nodes.get(key);
  if (summary) {
    summary.name = updated.name; summary.kind = updated.kind; summary.aliases = updated.aliases || [];
  }
  const g = state.graph;
  if (g && g.hasNode(key)) {
    g.mergeNodeAttributes(key, { label: updated.name, kind: updated.kind, color: kindColor(updated.kind) });
  }
  state.kindsSeen.add(updated.kind);
  state.kindsOn.add(updated.kind);
  drawKindFilter();
  refreshSearch(false);
  state.detail = updated;
  renderPanel(updated, { section: sectionName, text: successText, ok: true });
}

export async function forgetEdge(d, e) {
  const outgoing = String(e.source.id) === String(d.id);
  const line = (outgoing ? d.name : e.source.name) + " " + e.relation + " " + (outgoing ? e.target.name : d.name);
  const ok = await confirmAction("Forget this memory? “" + line + "” and its snippet are deleted for good.", "Forget it");
  if (!ok) return;
  busy(true, "edges", "Forgetting…");
  try {
    await api("DELETE", fill(URLS.edge, e.id));
  } catch (err) { failed("edges", err); return; }
  dropEdgeLocally(String(e.id));
  d.edges = (d.edges || []).filter(function (x) { return x.id !== e.id; });
  renderPanel(d, { section: "edges", text: "Forgotten: " + line + ".", ok: true });
}

export function dropEdgeLocally(edgeKey) {
  const g = state.graph;
  if (!g || !g.hasEdge(edgeKey)) return;
  [g.source(edgeKey), g.target(edgeKey)].forEach(function (n) {
    const degree = Math.max(0, (g.getNodeAttribute(n, "degree") || 0) - 1);
    g.mergeNodeAttributes(n, { degree: degree, size: nodeSize(degree) });
    const summary = state.nodes.get(n);
    if (summary) summary.degree = degree;
  });
  g.dropEdge(edgeKey);
  if (state.selected) state.neighbours = new Set(g.hasNode(state.selected) ? g.neighbors(state.selected) : []);
  updateCounts();
  summaryStatus();
}

export function dropNodeLocally(key) {
  const g = state.graph;
  if (g && g.hasNode(key)) {
    g.edges(key).forEach(dropEdgeLocally);
    g.dropNode(key);
  }
  state.nodes.delete(key);
  state.matches.delete(key);
  if (state.selected === key) { clearSelection(); delete root.dataset.selected; }
  updateCounts();
  summaryStatus();
  drawKindFilter();
  refreshSearch(false);
}

export async function forgetNode(d) {
  const count = (d.edges || []).length;
  const ok = await confirmAction("Forget “" + d.name + "” and " + plural(count, "memory", "memories") +
    " attached to it? This can't be undone.", "Forget everything");
  if (!ok) return;
  busy(true, "forget", "Forgetting…");
  try {
    await api("DELETE", fill(URLS.node, d.id));
  } catch (err) { failed("forget", err); return; }
  dropNodeLocally(String(d.id));
  const done = el("div", "panel-done");
  const msg = el("p", "msg ok", "Forgotten: “" + d.name + "” and " + plural(count, "memory", "memories") + ".");
  msg.setAttribute("role", "status");
  msg.tabIndex = -1;
  done.appendChild(msg);
  panel.replaceChildren(done);
  msg.focus();
  redraw();
}

export async function mergeInto(d, intoId, intoName) {
  const ok = await confirmAction("Merge “" + d.name + "” into “" + intoName + "”? Its memories move to “" +
    intoName + "” and its name becomes an alias. You can undo this from “" + intoName + "”'s merge history.",
  "Merge");
  if (!ok) return;
  busy(true, "merge", "Merging…");
  let result;
  try {
    result = await api("POST", fill(URLS.merge, d.id), { into: Number(intoId) });
  } catch (err) { failed("merge", err); return; }
  const kept = result && result.kept ? String(result.kept.id) : String(intoId);
  await loadGraph();
  await selectNode(kept, {
    center: true,
    flash: { section: "history", text: "Merged “" + d.name + "” into “" + (result.kept ? result.kept.name : intoName) + "”. Undo it below if that was wrong.", ok: true },
  });
}

export async function revertMerge(d, m, button) {
  busy(true, "history", "Undoing the merge…");
  button.textContent = "Undoing…";
  try {
    await api("POST", fill(URLS.revert, m.id));
  } catch (err) { failed("history", err); button.textContent = "Undo"; return; }
  await loadGraph();
  await selectNode(String(d.id), {
    center: false,
    flash: { section: "history", text: "Undone: “" + (m.absorbed_name || "the merged node") + "” is separate again.", ok: true },
  });
}
