/* Node sizes, the status line, loading the graph, the layout, the sigma renderer and its reducers. Part of the memory explorer: see main.js. */

import { api } from "./api.js";
import { container, CROSSED_EDGE, DIMMED_NODE, FADED_EDGE, FAST_EDGES_ABOVE, LAYOUT_BUDGET_MS, LAYOUT_SEED, PG, retryButton, root, scriptStart, SELECTED_EDGE, showDormant, showSuperseded, state, statusBox, URLS } from "./context.js";
import { clearSelection, selectNode } from "./panel.js";
import { drawKindFilter, refreshSearch } from "./search.js";
import { edgeColor, edgeSize, fmtDate, kindColor, mulberry32, plural } from "./util.js";

// Node size by degree; smaller overall in big graphs so hubs don't bury their neighbours.
export let sizeScale = 1;
export function nodeSize(degree) {
  return sizeScale * Math.min(16, 3 + 1.8 * Math.sqrt(Math.max(0, degree || 0)));
}

// --- status line -----------------------------------------------------------------------
export function setStatus(kind, text, canRetry) {
  statusBox.className = "graph-status " + kind;
  statusBox.textContent = text;
  retryButton.hidden = !canRetry;
}

export function summaryStatus() {
  const g = state.graph;
  if (!g) return;
  if (g.order === 0) {
    setStatus("empty", "Nothing remembered yet. Chat with Pegasus and end the conversation; what you shared appears here.");
    return;
  }
  let text = plural(g.order, "thing", "things") + " · " + plural(g.size, "memory", "memories");
  if (state.asOf) text += " · strengths as of " + fmtDate(state.asOf + "T12:00:00Z");
  setStatus("ready", text);
}

export function updateCounts() {
  const g = state.graph;
  root.dataset.nodeCount = String(g ? g.order : 0);
  root.dataset.edgeCount = String(g ? g.size : 0);
}

// --- loading and drawing ---------------------------------------------------------------
export function graphParams() {
  const params = new URLSearchParams();
  if (state.asOf) params.set("as_of", state.asOf + "T12:00:00Z");
  params.set("include_dormant", showDormant.checked ? "1" : "0");
  params.set("include_superseded", showSuperseded.checked ? "1" : "0");
  return params.toString();
}

export async function loadGraph() {
  const seq = ++state.loadSeq;
  const t0 = performance.now();
  root.setAttribute("aria-busy", "true");
  setStatus("loading", state.graph ? "Updating…" : "Loading your memory…");
  let data;
  try {
    data = await api("GET", URLS.graph + "?" + graphParams());
  } catch (err) {
    if (seq !== state.loadSeq) return false;
    root.removeAttribute("aria-busy");
    setStatus("error", "Couldn't load your memory: " + err.detail, true);
    if (state.firstDraw) root.dataset.drawn = "error";
    return false;
  }
  if (seq !== state.loadSeq) return false;  // a newer request is on its way
  const fetched = performance.now();
  try {
    applyGraph(data, { fetchMs: fetched - t0 });
  } catch (err) {
    setStatus("error", "Couldn't draw the graph: " + (err && err.message ? err.message : err), true);
    root.dataset.drawn = "error";
    root.removeAttribute("aria-busy");
    throw err;
  }
  root.removeAttribute("aria-busy");
  return true;
}

export function applyGraph(data, timing) {
  const t0 = performance.now();
  const old = state.graph;
  const g = new PG.Graph({ multi: true, type: "directed", allowSelfLoops: false });
  const rng = mulberry32(LAYOUT_SEED);
  const nodes = data.nodes || [];
  const radius = 10 * Math.sqrt(Math.max(1, nodes.length));
  const fresh = [];
  sizeScale = nodes.length > 2000 ? 0.5 : nodes.length > 500 ? 0.75 : 1;
  state.nodes = new Map();
  nodes.forEach(function (n) {
    const key = String(n.id);
    state.nodes.set(key, n);
    state.kindsSeen.add(n.kind);
    // Seeded positions (a fixed-seed disc) so the same graph lays out the same way.
    const angle = rng() * 2 * Math.PI;
    const r = radius * Math.sqrt(rng());
    const attrs = {
      label: n.name, kind: n.kind, degree: n.degree || 0, size: nodeSize(n.degree),
      isSelf: !!n.is_self,
      color: kindColor(n.kind), x: r * Math.cos(angle), y: r * Math.sin(angle),
    };
    if (old && old.hasNode(key)) {
      attrs.x = old.getNodeAttribute(key, "x");
      attrs.y = old.getNodeAttribute(key, "y");
    } else {
      fresh.push(key);
    }
    g.addNode(key, attrs);
  });
  (data.edges || []).forEach(function (e) {
    const s = String(e.source), t = String(e.target);
    if (s === t || !g.hasNode(s) || !g.hasNode(t)) return;
    g.addEdgeWithKey(String(e.id), s, t, {
      relation: e.relation, strength: e.strength, dormant: !!e.dormant, superseded: !!e.superseded,
      color: edgeColor(e), size: edgeSize(e), weight: 0.2 + 0.8 * Math.max(0, Math.min(1, (e.strength || 0) / 100)),
    });
  });
  const built = performance.now();

  let iterations = 0;
  if (!old || fresh.length === g.order) {
    iterations = runLayout(g, g.order <= 500 ? 100 : 10,
      g.order <= 500 ? 300 : g.order <= 2000 ? 120 : 60, LAYOUT_BUDGET_MS);
  } else if (fresh.length) {
    // Keep everyone where they were; let newcomers (e.g. an un-merged node) settle next to
    // their neighbours.
    fresh.forEach(function (key) {
      const anchor = g.neighbors(key).find(function (k) { return fresh.indexOf(k) < 0; });
      if (anchor) {
        g.setNodeAttribute(key, "x", g.getNodeAttribute(anchor, "x") + (rng() - 0.5) * 20);
        g.setNodeAttribute(key, "y", g.getNodeAttribute(anchor, "y") + (rng() - 0.5) * 20);
      }
    });
    g.forEachNode(function (key, attrs) { if (fresh.indexOf(key) < 0) attrs.fixed = true; });
    iterations = runLayout(g, 10, 40, 300);
    g.forEachNode(function (key, attrs) { delete attrs.fixed; });
  }
  const laidOut = performance.now();

  if (state.selected && !g.hasNode(state.selected)) clearSelection();
  rankImportant(g);
  state.graph = g;
  state.neighbours = state.selected ? new Set(g.neighbors(state.selected)) : new Set();
  drawKindFilter();
  if (!state.renderer) {
    state.renderer = createRenderer(g);
  } else {
    state.renderer.setSetting("defaultEdgeType", g.size > FAST_EDGES_ABOVE ? "fast" : "line");
    state.renderer.setGraph(g);
  }
  const rendered = performance.now();
  updateCounts();
  summaryStatus();
  refreshSearch(false);
  if (state.firstDraw) {
    state.firstDraw = false;
    // Two frames: the first presents what sigma drew, the second runs once it is on screen.
    requestAnimationFrame(function () { requestAnimationFrame(function () {
      root.dataset.drawMs = String(Math.round(performance.now()));
      root.dataset.drawnAt = String(Date.now());
      const nav = performance.getEntriesByType("navigation")[0];
      root.dataset.timings = JSON.stringify({
        page: nav ? Math.round(nav.responseEnd) : null, script: Math.round(scriptStart),
        fetch: Math.round(timing.fetchMs), build: Math.round(built - t0),
        layout: Math.round(laidOut - built), iterations: iterations,
        render: Math.round(rendered - laidOut), nodes: g.order, edges: g.size,
      });
      root.dataset.drawn = "1";
    }); });
  }
}

// Runs at least ``minIterations`` (so even a slow machine gets some structure), then more
// while the time budget lasts, up to ``maxIterations``.
export function runLayout(g, minIterations, maxIterations, budgetMs) {
  if (g.order < 2 || g.size === 0) return 0;
  const settings = PG.forceAtlas2.inferSettings(g);
  settings.barnesHutOptimize = g.order > 400;
  settings.barnesHutTheta = g.order > 2000 ? 1.2 : 1.0;
  const start = performance.now();
  // Each call rebuilds the layout's arrays from the graph, so run few, large calls: a short
  // first one to time an iteration, then as many as the budget allows.
  let done = 0;
  let batch = Math.min(maxIterations, g.order > 2000 ? 4 : 10);
  while (batch > 0) {
    PG.forceAtlas2.assign(g, { iterations: batch, settings: settings, getEdgeWeight: "weight" });
    done += batch;
    const spent = performance.now() - start;
    const affordable = Math.floor((budgetMs - spent) / (spent / done));
    batch = Math.min(maxIterations - done, Math.max(minIterations - done, affordable));
  }
  return done;
}

export function createRenderer(g) {
  const renderer = new PG.Sigma(g, container, {
    hideEdgesOnMove: true,
    hideLabelsOnMove: g.order > 2000,
    renderEdgeLabels: false,
    enableEdgeEvents: false,
    // Labels: sigma keeps the largest (best-connected) node of each grid cell, so the most
    // important names show at every zoom without overlapping; the top few are forced on
    // (state.important); any other node shows its name on hover.
    labelRenderedSizeThreshold: 2,
    labelDensity: 1,
    labelGridCellSize: 150,
    labelFont: "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif",
    labelSize: 12,
    labelColor: { color: "#1d1d28" },
    zIndex: true,
    minCameraRatio: 0.01,
    maxCameraRatio: 6,
    enableCameraRotation: false,
    defaultEdgeType: g.size > FAST_EDGES_ABOVE ? "fast" : "line",
    edgeProgramClasses: { fast: PG.programs.EdgeLineProgram },
    nodeReducer: nodeReducer,
    edgeReducer: edgeReducer,
  });
  renderer.on("clickNode", function (event) { selectNode(event.node, { center: false }); });
  renderer.on("enterNode", function () { container.classList.add("pointing"); });
  renderer.on("leaveNode", function () { container.classList.remove("pointing"); });
  return renderer;
}

export function redraw() {
  if (state.renderer) state.renderer.refresh();
}

// The IMPORTANT_LABELS most important nodes (you, then by number of memories) keep their
// label at every zoom.
export const IMPORTANT_LABELS = 12;

export function rankImportant(g) {
  const ranked = g.nodes().sort(function (a, b) {
    const A = g.getNodeAttributes(a), B = g.getNodeAttributes(b);
    return (B.isSelf - A.isSelf) || (B.degree - A.degree) || (A.label < B.label ? -1 : 1);
  });
  state.important = new Set(ranked.slice(0, IMPORTANT_LABELS));
}

export function nodeReducer(key, attrs) {
  const out = Object.assign({}, attrs);
  if (!state.kindsOn.has(attrs.kind)) { out.hidden = true; return out; }
  out.zIndex = 0;
  if (state.important && state.important.has(key)) out.forceLabel = true;
  if (state.recall) {
    if (state.recall.fired.has(key)) {
      out.highlighted = true; out.forceLabel = true; out.zIndex = 2;
      out.size = attrs.size + 4;
    } else {
      out.color = DIMMED_NODE; out.label = null;
    }
  }
  if (state.matches.has(key)) { out.highlighted = true; out.forceLabel = true; out.zIndex = 2; }
  if (state.selected) {
    if (key === state.selected) {
      out.highlighted = true; out.forceLabel = true; out.zIndex = 3;
      out.size = attrs.size * 1.3 + 2;
    } else if (state.neighbours.has(key)) {
      out.forceLabel = state.neighbours.size <= 40; out.zIndex = Math.max(out.zIndex, 1);
    }
  }
  return out;
}

export function edgeReducer(key, attrs) {
  const out = Object.assign({}, attrs);
  const g = state.graph;
  if (state.kindsOn.size < state.kindsSeen.size) {
    const s = g.getNodeAttribute(g.source(key), "kind"), t = g.getNodeAttribute(g.target(key), "kind");
    if (!state.kindsOn.has(s) || !state.kindsOn.has(t)) { out.hidden = true; return out; }
  }
  out.zIndex = 0;
  const recalled = isRecalledEdge(key);
  if (state.recall) {
    if (recalled) { out.color = CROSSED_EDGE; out.size = 3; out.zIndex = 2; }
    else out.color = FADED_EDGE;
  }
  if (state.selected && (g.source(key) === state.selected || g.target(key) === state.selected)) {
    if (!recalled) out.color = SELECTED_EDGE;
    out.size = Math.max(out.size || 1, 2.5); out.zIndex = Math.max(out.zIndex, 1);
  }
  return out;
}

// A recalled memory is an edge whose both ends fired (SPEC §5.3: exactly the preview's
// "Memories" lines); edges merely crossed while spreading are not coloured as recalled.
export function isRecalledEdge(key) {
  const g = state.graph;
  return !!(state.recall && g && g.hasEdge(key) &&
    state.recall.fired.has(g.source(key)) && state.recall.fired.has(g.target(key)));
}

export function recalledEdges() {
  return state.graph ? state.graph.edges().filter(isRecalledEdge) : [];
}

export function centerOn(key) {
  const r = state.renderer;
  if (!r) return;
  const data = r.getNodeDisplayData(key);
  if (!data) return;
  const camera = r.getCamera();
  camera.animate({ x: data.x, y: data.y, ratio: Math.min(camera.ratio, 0.35) }, { duration: 400 });
}

export function centerOnMany(keys) {
  const r = state.renderer;
  if (!r || !keys.length) return;
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  keys.forEach(function (key) {
    const d = r.getNodeDisplayData(key);
    if (!d) return;
    minX = Math.min(minX, d.x); maxX = Math.max(maxX, d.x);
    minY = Math.min(minY, d.y); maxY = Math.max(maxY, d.y);
  });
  if (!Number.isFinite(minX)) return;
  const span = Math.max(maxX - minX, maxY - minY);
  r.getCamera().animate({ x: (minX + maxX) / 2, y: (minY + maxY) / 2,
    ratio: Math.max(0.08, Math.min(1, span * 1.8)) }, { duration: 400 });
}
