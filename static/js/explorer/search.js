/* The kind filter (doubles as the colour legend) and the name search. Part of the memory explorer: see main.js. */

import { ALL_KINDS, KIND_LABELS, kindFilter, searchCount, searchInput, searchResults, state } from "./context.js";
import { centerOn, redraw } from "./graph.js";
import { selectNode } from "./panel.js";
import { el, fold, kindColor, plural } from "./util.js";

// --- kind filter (doubles as the colour legend) ----------------------------------------
export function drawKindFilter() {
  const counts = {};
  state.nodes.forEach(function (n) { counts[n.kind] = (counts[n.kind] || 0) + 1; });
  kindFilter.replaceChildren();
  ALL_KINDS.filter(function (k) { return state.kindsSeen.has(k) || counts[k]; }).forEach(function (kind) {
    const label = el("label", "check kind-option");
    const box = el("input");
    box.type = "checkbox"; box.value = kind; box.checked = state.kindsOn.has(kind);
    box.addEventListener("change", function () {
      if (box.checked) state.kindsOn.add(kind); else state.kindsOn.delete(kind);
      redraw();
    });
    const swatch = el("span", "swatch");
    swatch.style.backgroundColor = kindColor(kind);  // CSSOM, allowed under style-src 'self'
    label.append(box, swatch, el("span", "", (KIND_LABELS[kind] || kind) + " "),
      el("span", "muted count", String(counts[kind] || 0)));
    kindFilter.appendChild(label);
  });
  if (!kindFilter.children.length) kindFilter.appendChild(el("span", "muted", "none yet"));
}

// --- search ----------------------------------------------------------------------------
export let searchTimer = null;
export let centerTimer = null;

export function findMatches(query) {
  const q = fold(query);
  if (!q) return [];
  const found = [];
  state.nodes.forEach(function (n, key) {
    const name = fold(n.name);
    let rank = -1, via = null;
    if (name === q) rank = 0;
    else if (name.startsWith(q)) rank = 1;
    else if (name.indexOf(q) >= 0) rank = 2;
    else {
      (n.aliases || []).some(function (alias) {
        const a = fold(alias);
        if (a === q || a.indexOf(q) >= 0) { rank = a === q ? 1 : 3; via = alias; return true; }
        return false;
      });
    }
    if (rank >= 0) found.push({ key: key, node: n, rank: rank, via: via });
  });
  found.sort(function (a, b) {
    return a.rank - b.rank || (b.node.degree || 0) - (a.node.degree || 0) ||
      String(a.node.name).localeCompare(String(b.node.name));
  });
  return found;
}

// ``interactive``: the user is typing, so open the results list and centre on the best match.
export function refreshSearch(interactive) {
  const query = searchInput.value;
  const found = findMatches(query);
  const before = state.matches;
  state.matches = new Set(found.slice(0, 200).map(function (m) { return m.key; }));
  const changed = before.size !== state.matches.size ||
    Array.from(before).some(function (k) { return !state.matches.has(k); });
  searchResults.replaceChildren();
  if (!fold(query)) {
    searchResults.hidden = true;
    searchCount.textContent = "";
    if (changed) redraw();
    return found;
  }
  searchCount.textContent = found.length ? plural(found.length, "match", "matches") : "no match";
  found.slice(0, 12).forEach(function (m, index) {
    const li = el("li");
    const button = el("button", "search-hit");
    button.type = "button";
    button.dataset.node = m.key;
    if (index === 0) button.classList.add("first");
    const swatch = el("span", "swatch");
    swatch.style.backgroundColor = kindColor(m.node.kind);
    button.append(swatch, el("span", "hit-name", m.node.name));
    if (m.via) button.appendChild(el("span", "hit-via muted", "also “" + m.via + "”"));
    button.appendChild(el("span", "hit-kind muted", m.node.kind));
    if (!state.kindsOn.has(m.node.kind)) button.appendChild(el("span", "badge", "hidden"));
    button.addEventListener("click", function () { selectNode(m.key, { center: true, focus: true }); });
    li.appendChild(button);
    searchResults.appendChild(li);
  });
  if (interactive) searchResults.hidden = found.length === 0;
  if (changed) redraw();
  if (interactive && found.length) {
    clearTimeout(centerTimer);
    const key = found[0].key;
    centerTimer = setTimeout(function () { centerOn(key); }, 250);
  }
  return found;
}

// The search box and its results list, wired once by start() in main.js.
export function wireSearch() {
  searchInput.addEventListener("input", function () {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(function () { refreshSearch(true); }, 80);
  });
  searchInput.addEventListener("focus", function () {
    if (searchResults.children.length) searchResults.hidden = false;
  });
  document.addEventListener("click", function (event) {
    if (!event.target.closest(".search-box")) searchResults.hidden = true;
  });
  searchInput.addEventListener("keydown", function (event) {
    if (event.key === "Enter") {
      event.preventDefault();
      clearTimeout(searchTimer);
      const found = refreshSearch(false);
      if (found.length) selectNode(found[0].key, { center: true, focus: true });
    } else if (event.key === "ArrowDown") {
      clearTimeout(searchTimer);
      refreshSearch(true);  // never step into results of an older query
      const first = searchResults.querySelector("button");
      if (first) { event.preventDefault(); first.focus(); }
    } else if (event.key === "Escape") {
      searchInput.value = "";
      refreshSearch(false);
    }
  });
  searchResults.addEventListener("keydown", function (event) {
    const buttons = Array.from(searchResults.querySelectorAll("button"));
    const index = buttons.indexOf(document.activeElement);
    if (event.key === "ArrowDown" && index < buttons.length - 1) { event.preventDefault(); buttons[index + 1].focus(); }
    if (event.key === "ArrowUp") { event.preventDefault(); (index > 0 ? buttons[index - 1] : searchInput).focus(); }
    if (event.key === "Escape") searchInput.focus();
  });
}
