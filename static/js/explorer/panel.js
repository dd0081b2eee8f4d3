/* Selection and the side panel of one node (renderPanel). Part of the memory explorer: see main.js. */

import { dropNodeLocally, forgetNode, mergeInto, patchNode, revertMerge } from "./actions.js";
import { api } from "./api.js";
import { $, ALL_KINDS, panel, root, searchResults, state, URLS } from "./context.js";
import { centerOn, redraw } from "./graph.js";
import { edgeRow } from "./rows.js";
import { drawKindFilter } from "./search.js";
import { el, fill, fmt, fmtDate, kindColor } from "./util.js";

// --- selection and the side panel -----------------------------------------------------
export function clearSelection() {
  state.selected = null;
  state.neighbours = new Set();
  state.detail = null;
  state.openSparkline = null;
}

export function selectNode(key, options) {
  key = String(key);
  searchResults.hidden = true;
  const node = state.nodes.get(key);
  if (node && !state.kindsOn.has(node.kind)) {
    state.kindsOn.add(node.kind);
    drawKindFilter();
  }
  state.selected = key;
  state.neighbours = state.graph && state.graph.hasNode(key) ? new Set(state.graph.neighbors(key)) : new Set();
  state.openSparkline = null;
  redraw();
  if (options && options.center) centerOn(key);
  root.dataset.selected = key;
  return openPanel(key, options && options.flash, options && options.focus);
}

export function closePanel() {
  clearSelection();
  delete root.dataset.selected;
  panel.replaceChildren(emptyPanel);
  redraw();
}

export const emptyPanel = panel.firstElementChild;

export async function openPanel(key, flash, focus) {
  const seq = ++state.panelSeq;
  panel.setAttribute("aria-busy", "true");
  const loading = el("p", "panel-loading", "Loading…");
  if (!state.detail || String(state.detail.id) !== key) panel.replaceChildren(loading);
  let detail;
  try {
    detail = await api("GET", fill(URLS.node, key));
  } catch (err) {
    if (seq !== state.panelSeq) return;
    panel.removeAttribute("aria-busy");
    const box = el("div", "panel-error");
    box.appendChild(el("p", "msg err", err.status === 404
      ? "This node no longer exists (it may have been merged or forgotten)."
      : "Couldn't load this node: " + err.detail));
    if (err.status === 404) {
      dropNodeLocally(key);
    } else {
      const retry = el("button", "secondary", "Try again");
      retry.type = "button";
      retry.addEventListener("click", function () { openPanel(key); });
      box.appendChild(retry);
    }
    panel.replaceChildren(box);
    return;
  }
  if (seq !== state.panelSeq) return;
  panel.removeAttribute("aria-busy");
  state.detail = detail;
  renderPanel(detail, flash);
  if (focus && !flash) $("panel-title").focus();  // keyboard users land on what they opened
}

export function section(title, name) {
  const s = el("section", "panel-section");
  s.dataset.section = name;
  if (title) s.appendChild(el("h3", "", title));
  return s;
}

export function messageArea(sectionEl) {
  const p = el("p", "msg");
  p.setAttribute("role", "status");
  p.tabIndex = -1;
  p.hidden = true;
  sectionEl.appendChild(p);
  return p;
}

export function showMessage(p, text, ok) {
  p.textContent = text;
  p.className = "msg " + (ok ? "ok" : "err");
  p.hidden = false;
}

export function labelled(labelText, control, id) {
  const label = el("label", "", labelText);
  control.id = id;
  label.htmlFor = id;
  return label;
}

export function renderPanel(d, flash) {
  // A correction re-renders the panel when it succeeds: the fresh panel is never busy.
  panel.removeAttribute("aria-busy");
  const key = String(d.id);
  const frag = document.createDocumentFragment();
  const messages = {};

  // Header
  const header = el("header", "panel-header");
  const title = el("h2", "panel-title", d.name);
  title.id = "panel-title";
  title.tabIndex = -1;
  const close = el("button", "link close", "×");
  close.type = "button";
  close.setAttribute("aria-label", "Close");
  close.addEventListener("click", closePanel);
  header.append(title, close);
  const badges = el("p", "badges");
  const kindBadge = el("span", "badge kind", d.kind);
  kindBadge.style.borderColor = kindColor(d.kind);
  badges.appendChild(kindBadge);
  if (d.is_self) badges.appendChild(el("span", "badge ok", "you"));
  if (d.provisional) badges.appendChild(el("span", "badge warn", "provisional"));
  badges.appendChild(el("span", "badge", "confidence " + fmt(d.confidence, 2)));
  header.appendChild(badges);
  frag.appendChild(header);

  // Aliases and properties
  const about = section("Also known as", "aliases");
  const aliases = d.aliases || [];
  if (aliases.length) {
    const ul = el("ul", "aliases");
    aliases.forEach(function (alias) {
      const li = el("li", "alias");
      li.appendChild(el("span", "", alias));
      const remove = el("button", "link remove", "×");
      remove.type = "button";
      remove.setAttribute("aria-label", "Remove the alias " + alias);
      remove.addEventListener("click", function () {
        patchNode(d, { remove_alias: alias }, "aliases", "Removed the alias “" + alias + "”.");
      });
      li.appendChild(remove);
      ul.appendChild(li);
    });
    about.appendChild(ul);
  } else {
    about.appendChild(el("p", "muted", "No aliases."));
  }
  messages.aliases = messageArea(about);
  frag.appendChild(about);

  const props = d.properties || {};
  const propKeys = Object.keys(props);
  if (propKeys.length) {
    const ps = section("Facts", "properties");
    const dl = el("dl", "properties");
    propKeys.forEach(function (k) {
      const v = props[k];
      dl.append(el("dt", "", k), el("dd", "", typeof v === "string" ? v : JSON.stringify(v)));
    });
    ps.appendChild(dl);
    frag.appendChild(ps);
  }

  // Memories (edges)
  const edgesSection = section("What is remembered", "edges");
  const edges = d.edges || [];
  if (!edges.length) edgesSection.appendChild(el("p", "muted", "No memories attached."));
  const list = el("ul", "edge-list");
  edges.forEach(function (e) { list.appendChild(edgeRow(d, e)); });
  edgesSection.appendChild(list);
  messages.edges = messageArea(edgesSection);
  edgesSection.insertBefore(messages.edges, list);
  frag.appendChild(edgesSection);

  // Episodes
  const episodes = d.episodes || [];
  const epSection = section("From your conversations", "episodes");
  if (!episodes.length) epSection.appendChild(el("p", "muted", "Not linked to a conversation (imported or added by hand)."));
  const epList = el("ul", "episodes");
  episodes.forEach(function (ep) {
    const li = el("li");
    li.appendChild(el("span", "muted when", fmtDate(ep.started_at || ep.ended_at)));
    li.appendChild(el("span", "summary", ep.summary || "(no summary)"));
    if (ep.conversation_id) {
      const a = el("a", "", "Open the conversation");
      a.href = fill(URLS.conversation, ep.conversation_id);
      li.appendChild(a);
    }
    epList.appendChild(li);
  });
  epSection.appendChild(epList);
  frag.appendChild(epSection);

  // Corrections
  const fix = section("Correct it", "correct");
  const nameForm = el("form", "inline-form");
  const nameInput = el("input");
  nameInput.type = "text"; nameInput.value = d.name; nameInput.maxLength = 200; nameInput.required = true;
  const nameButton = el("button", "", "Rename");
  nameButton.type = "submit";
  nameForm.append(labelled("Name", nameInput, "fix-name"), nameInput, nameButton);
  nameForm.addEventListener("submit", function (event) {
    event.preventDefault();
    const value = nameInput.value.trim();
    if (!value || value === d.name) return;
    patchNode(d, { name: value }, "name", "Renamed to “" + value + "”.");
  });
  fix.appendChild(nameForm);
  messages.name = messageArea(fix);

  const aliasForm = el("form", "inline-form");
  const aliasInput = el("input");
  aliasInput.type = "text"; aliasInput.maxLength = 200; aliasInput.required = true;
  const aliasButton = el("button", "", "Add alias");
  aliasButton.type = "submit";
  aliasForm.append(labelled("Add an alias", aliasInput, "fix-alias"), aliasInput, aliasButton);
  aliasForm.addEventListener("submit", function (event) {
    event.preventDefault();
    const value = aliasInput.value.trim();
    if (!value) return;
    patchNode(d, { add_alias: value }, "alias", "Added the alias “" + value + "”.");
  });
  fix.appendChild(aliasForm);
  messages.alias = messageArea(fix);

  const kindForm = el("form", "inline-form");
  const kindSelect = el("select");
  ALL_KINDS.forEach(function (k) {
    const option = el("option", "", k);
    option.value = k; option.selected = k === d.kind;
    kindSelect.appendChild(option);
  });
  const kindButton = el("button", "", "Change kind");
  kindButton.type = "submit";
  kindForm.append(labelled("Kind", kindSelect, "fix-kind"), kindSelect, kindButton);
  kindForm.addEventListener("submit", function (event) {
    event.preventDefault();
    if (kindSelect.value === d.kind) return;
    patchNode(d, { kind: kindSelect.value }, "kind", "Now filed as " + kindSelect.value + ".");
  });
  fix.appendChild(kindForm);
  messages.kind = messageArea(fix);

  const mergeForm = el("form", "inline-form merge-form");
  const others = [];
  state.nodes.forEach(function (n, k) { if (k !== key && n.kind === d.kind) others.push(n); });
  others.sort(function (a, b) { return String(a.name).localeCompare(String(b.name)); });
  const mergeSelect = el("select");
  const placeholder = el("option", "", others.length ? "Choose a " + d.kind.toLowerCase() + "…" : "No other " + d.kind.toLowerCase() + " to merge with");
  placeholder.value = "";
  mergeSelect.appendChild(placeholder);
  others.forEach(function (n) {
    const option = el("option", "", n.name);
    option.value = String(n.id);
    mergeSelect.appendChild(option);
  });
  mergeSelect.disabled = !others.length;
  const mergeButton = el("button", "secondary", "Merge…");
  mergeButton.type = "submit";
  mergeButton.disabled = !others.length;
  mergeForm.append(labelled("Same as another " + d.kind.toLowerCase() + "? Merge into", mergeSelect, "fix-merge"),
    mergeSelect, mergeButton);
  mergeForm.addEventListener("submit", function (event) {
    event.preventDefault();
    if (!mergeSelect.value) return;
    const into = state.nodes.get(mergeSelect.value);
    mergeInto(d, mergeSelect.value, into ? into.name : "the other node");
  });
  fix.appendChild(mergeForm);
  messages.merge = messageArea(fix);

  if (d.is_self) {
    fix.appendChild(el("p", "muted", "This node stands for you, so it can't be forgotten; forget single memories above instead."));
  } else {
    const forget = el("button", "danger-button forget-node", "Forget this node…");
    forget.type = "button";
    forget.addEventListener("click", function () { forgetNode(d); });
    fix.appendChild(forget);
  }
  messages.forget = messageArea(fix);
  frag.appendChild(fix);

  // Merge history
  const merges = d.merges || [];
  const history = section("Merge history", "history");
  if (!merges.length) history.appendChild(el("p", "muted", "Nothing has been merged into this node."));
  messages.history = messageArea(history);  // above the list: "Undo it below"
  const hList = el("ul", "merges");
  merges.forEach(function (m) {
    const li = el("li", "merge-row");
    li.dataset.merge = String(m.id);
    li.appendChild(el("span", "", "“" + (m.absorbed_name || "?") + "” merged in"));
    li.appendChild(el("span", "muted", " · " + (m.rule || "") + " · " + fmtDate(m.created_at) + " "));
    li.appendChild(el("span", "badge" + (m.status === "reverted" ? "" : " ok"), m.status));
    if (m.reason) li.appendChild(el("div", "muted reason", m.reason));
    if (m.status === "merged" || m.status === "merged-flagged") {
      const undo = el("button", "secondary undo", "Undo");
      undo.type = "button";
      undo.setAttribute("aria-label", "Undo the merge of " + (m.absorbed_name || "this node"));
      undo.addEventListener("click", function () { revertMerge(d, m, undo); });
      li.appendChild(undo);
    }
    hList.appendChild(li);
  });
  history.appendChild(hList);
  frag.appendChild(history);

  panel.replaceChildren(frag);
  if (flash && messages[flash.section]) {
    showMessage(messages[flash.section], flash.text, flash.ok);
    messages[flash.section].focus();
  }
  state.messages = messages;
}
