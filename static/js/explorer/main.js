/* The memory explorer (/memory/): draw the user's graph with sigma.js + graphology, search
   it, inspect a node, correct it through the REST API, and preview what a message would
   recall.

   Safety: every name, alias, relation and snippet comes from JSON and is put on the page with
   textContent (or drawn as canvas text by sigma); nothing from the server goes through
   innerHTML. No inline script or style attribute (CSP): styles are classes, or CSSOM
   (element.style.x = …) where a value is computed.

   Source of static/js/explorer.js: frontend/build.sh bundles these ES modules
   (static/js/explorer/*.js, entry main.js) into that one classic script. */

import { api } from "./api.js";
import { $, asOfInput, asOfNow, dialog, panel, PG, retryButton, root, searchInput, showDormant, showSuperseded, state } from "./context.js";
import { loadGraph, recalledEdges, setStatus } from "./graph.js";
import { closePanel, openPanel, renderPanel } from "./panel.js";
import { wireRecall } from "./recall.js";
import { drawKindFilter, wireSearch } from "./search.js";
import { el, plural } from "./util.js";

function start() {
  wireSearch();
  wireRecall();

  // --- toolbar ---------------------------------------------------------------------------
  asOfInput.addEventListener("change", function () {
    state.asOf = asOfInput.value || "";
    asOfNow.disabled = !state.asOf;
    loadGraph();
    if (state.selected && state.detail) renderPanel(state.detail);
  });
  asOfNow.addEventListener("click", function () {
    asOfInput.value = "";
    state.asOf = "";
    asOfNow.disabled = true;
    loadGraph();
    if (state.selected && state.detail) renderPanel(state.detail);
  });
  showDormant.addEventListener("change", function () { loadGraph(); });
  showSuperseded.addEventListener("change", function () { loadGraph(); });
  retryButton.addEventListener("click", function () { loadGraph(); });
  $("zoom-in").addEventListener("click", function () { if (state.renderer) state.renderer.getCamera().animatedZoom({ duration: 200 }); });
  $("zoom-out").addEventListener("click", function () { if (state.renderer) state.renderer.getCamera().animatedUnzoom({ duration: 200 }); });
  $("zoom-reset").addEventListener("click", function () { if (state.renderer) state.renderer.getCamera().animatedReset({ duration: 300 }); });

  document.addEventListener("keydown", function (event) {
    const typing = event.target.closest && event.target.closest("input, textarea, select");
    if (event.key === "/" && !typing && !dialog.open) {
      event.preventDefault();
      searchInput.focus();
      searchInput.select();
    } else if (event.key === "Escape" && !dialog.open && state.selected && panel.contains(event.target)) {
      closePanel();
      searchInput.focus();
    }
  });

  // --- go --------------------------------------------------------------------------------
  // What the merge inbox (explorer-inbox.js) shares with the page: the API helper, the
  // element builder, and a way to redraw the graph after an answer changed it.
  window.PegasusExplorerKit = Object.freeze({
    api: api,
    el: el,
    plural: plural,
    graphChanged: function () {
      if (!PG || !PG.Sigma) return Promise.resolve(false);
      const selected = state.selected;
      return loadGraph().then(function (ok) {
        if (ok && selected && state.nodes.has(selected)) openPanel(selected);
        else if (ok && selected) closePanel();
        return ok;
      });
    },
  });
  if (!PG || !PG.Sigma) {
    setStatus("error", "The drawing library did not load; reload the page to try again.", false);
    root.dataset.drawn = "error";
    return;
  }
  // A read-only window for tests and debugging: what is drawn right now.
  window.PegasusExplorer = Object.freeze({
    recallEdges: function () { return recalledEdges(); },
    labelledNodes: function () {
      return state.renderer ? Array.from(state.renderer.getNodeDisplayedLabels()) : [];
    },
    drawnEdges: function () { return state.graph ? state.graph.edges() : []; },
  });
  drawKindFilter();
  loadGraph();
}

if (root) start();
