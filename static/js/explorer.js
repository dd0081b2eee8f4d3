/* The memory explorer (/memory/): draw the user's graph with sigma.js + graphology, search
   it, inspect a node, correct it through the REST API, and preview what a message would
   recall.

   Safety: every name, alias, relation and snippet comes from JSON and is put on the page with
   textContent (or drawn as canvas text by sigma); nothing from the server goes through
   innerHTML. No inline script or style attribute (CSP): styles are classes, or CSSOM
   (element.style.x = …) where a value is computed. */
(function () {
  "use strict";
  const scriptStart = performance.now();
  const root = document.getElementById("explorer");
  if (!root) return;
  const PG = window.PegasusGraph;

  // --- constants -------------------------------------------------------------------------
  const SVG_NS = "http://www.w3.org/2000/svg";
  const DAY_MS = 86400000;
  // SPEC §5.4: S(t) = S0·e^(−λt), t in days since the last touch; dormant below 2.0.
  const LAMBDA = { immutable: 0, stable: 0.005, mutable: 0.02, time_bound: 0.05, ephemeral: 0.2 };
  const DORMANT_BELOW = 2.0;
  const KIND_COLORS = {
    PERSON: "#5b5bd6", ORG: "#0c8599", PLACE: "#2b8a3e", EVENT: "#e8590c",
    THING: "#8d5a2b", TOPIC: "#c2255c", PREFERENCE: "#d4a000", OTHER: "#6b7280",
  };
  const KIND_LABELS = {
    PERSON: "People", ORG: "Organisations", PLACE: "Places", EVENT: "Events", THING: "Things",
    TOPIC: "Topics", PREFERENCE: "Preferences", OTHER: "Other",
  };
  const DIMMED_NODE = "#cfd0db";
  const SELECTED_EDGE = "rgba(91, 91, 214, 0.95)";
  const CROSSED_EDGE = "rgba(230, 73, 0, 0.95)";
  const FADED_EDGE = "rgba(120, 120, 140, 0.05)";
  // Above this many edges sigma draws 1px GL lines instead of quads: several times faster.
  const FAST_EDGES_ABOVE = 4000;
  // Layout budget: a synchronous ForceAtlas2 run bounded in iterations and in time, so a
  // 5 000-node / 20 000-edge graph still draws within a few seconds.
  const LAYOUT_BUDGET_MS = 700;
  const LAYOUT_SEED = 1729;

  const ds = root.dataset;
  const URLS = {
    graph: ds.graphUrl, node: ds.nodeUrl, edge: ds.edgeUrl, merge: ds.mergeUrl,
    revert: ds.revertUrl, recall: ds.recallUrl, conversation: ds.conversationUrl,
  };
  const ALL_KINDS = (ds.kinds || "").split(",").filter(Boolean);

  const $ = function (id) { return document.getElementById(id); };
  const container = $("graph");
  const statusBox = $("graph-status");
  const retryButton = $("graph-retry");
  const searchInput = $("explorer-search");
  const searchResults = $("search-results");
  const searchCount = $("search-count");
  const kindFilter = $("kind-filter");
  const asOfInput = $("as-of");
  const asOfNow = $("as-of-now");
  const showDormant = $("show-dormant");
  const showSuperseded = $("show-superseded");
  const panel = $("panel");
  const recallForm = $("recall-form");
  const recallInput = $("recall-input");
  const recallSubmit = $("recall-submit");
  const recallClear = $("recall-clear");
  const recallResult = $("recall-result");
  const dialog = $("confirm-dialog");

  const state = {
    graph: null,
    renderer: null,
    nodes: new Map(),        // id (string) -> node summary from /graph/
    kindsOn: new Set(ALL_KINDS),
    kindsSeen: new Set((ds.userKinds || "").split(",").filter(Boolean)),
    asOf: "",
    selected: null,          // node key
    neighbours: new Set(),
    matches: new Set(),
    recall: null,            // {fired: Set, crossed: Set}
    detail: null,            // the open node's detail
    openSparkline: null,     // edge id whose sparkline is open
    loadSeq: 0,
    panelSeq: 0,
    firstDraw: true,
  };

  // --- small helpers ---------------------------------------------------------------------
  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function svg(tag, attrs, cls) {
    const node = document.createElementNS(SVG_NS, tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, String(attrs[k])); });
    if (cls) node.setAttribute("class", cls);
    return node;
  }

  function fill(template, id) {
    return template.replace("{id}", encodeURIComponent(String(id)));
  }

  function csrfToken() {
    const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    return match ? decodeURIComponent(match[1]) : "";
  }

  function fmt(value, digits) {
    const n = Number(value);
    return Number.isFinite(n) ? n.toFixed(digits === undefined ? 1 : digits) : "–";
  }

  function fmtDate(iso) {
    if (!iso) return "";
    const d = new Date(iso);
    if (Number.isNaN(d.getTime())) return String(iso);
    return d.toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric" });
  }

  // An edge's "occurred" (SPEC §5.5): a day, a month, a year or a day range, shown as dates.
  function fmtOccurred(text) {
    const value = String(text || "");
    const day = function (iso) {
      const d = new Date(iso + "T12:00:00Z");
      return Number.isNaN(d.getTime()) ? iso
        : d.toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric", timeZone: "UTC" });
    };
    if (value.indexOf("/") > 0) {
      const parts = value.split("/");
      return day(parts[0]) + " – " + day(parts[1]);
    }
    if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return day(value);
    if (/^\d{4}-\d{2}$/.test(value)) {
      const d = new Date(value + "-15T12:00:00Z");
      return d.toLocaleDateString(undefined, { year: "numeric", month: "long", timeZone: "UTC" });
    }
    return value;
  }

  function plural(n, one, many) { return n + " " + (n === 1 ? one : many); }

  function fold(text) {
    return String(text || "").normalize("NFKD").replace(/[\u0300-\u036f]/g, "")
      .toLowerCase().replace(/\s+/g, " ").trim();
  }

  function mulberry32(seed) {
    let a = seed >>> 0;
    return function () {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  function kindColor(kind) { return KIND_COLORS[kind] || KIND_COLORS.OTHER; }

  // Node size by degree; smaller overall in big graphs so hubs don't bury their neighbours.
  let sizeScale = 1;
  function nodeSize(degree) {
    return sizeScale * Math.min(16, 3 + 1.8 * Math.sqrt(Math.max(0, degree || 0)));
  }

  function edgeColor(edge) {
    const s = Math.max(0, Math.min(1, (Number(edge.strength) || 0) / 100));
    if (edge.superseded) return "rgba(194, 37, 92, 0.45)";
    if (edge.dormant) return "rgba(217, 119, 6, 0.45)";
    return "rgba(55, 65, 95, " + (0.08 + 0.72 * s).toFixed(3) + ")";
  }

  function edgeSize(edge) { return 0.6 + 2.2 * Math.max(0, Math.min(1, (edge.strength || 0) / 100)); }

  function strengthAt(s0, stability, touchedMs, atMs) {
    const lambda = LAMBDA[stability] === undefined ? LAMBDA.stable : LAMBDA[stability];
    const days = Math.max(0, (atMs - touchedMs) / DAY_MS);
    return s0 * Math.exp(-lambda * days);
  }

  // --- API -------------------------------------------------------------------------------
  function ApiError(code, detail, status) {
    this.code = code; this.detail = detail; this.status = status || 0;
  }

  async function api(method, url, body) {
    const options = { method: method, credentials: "same-origin", headers: { Accept: "application/json" } };
    if (method !== "GET") options.headers["X-CSRFToken"] = csrfToken();
    if (body !== undefined) {
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(url, options);
    } catch (err) {
      throw new ApiError("network", "Could not reach Pegasus. Check your connection and try again.");
    }
    if (response.status === 204) return null;
    let payload = null;
    const text = await response.text();
    if (text) { try { payload = JSON.parse(text); } catch (err) { payload = null; } }
    if (!response.ok) {
      const error = payload && payload.error ? payload.error : null;
      let detail = error && error.detail ? String(error.detail) : "";
      if (!detail && payload && payload.detail) detail = String(payload.detail);
      if (!detail) detail = "The server answered " + response.status + ".";
      if (error && error.fields && typeof error.fields === "object") {
        const parts = Object.keys(error.fields).map(function (field) {
          const v = error.fields[field];
          return field + ": " + (Array.isArray(v) ? v.join(" ") : String(v));
        });
        if (parts.length) detail += " (" + parts.join("; ") + ")";
      }
      if (response.status === 401 || response.status === 403) {
        if (!error || error.code === "not_authenticated") detail = "Your session has ended — sign in again.";
      }
      throw new ApiError(error && error.code ? error.code : String(response.status), detail, response.status);
    }
    return payload;
  }

  // --- status line -----------------------------------------------------------------------
  function setStatus(kind, text, canRetry) {
    statusBox.className = "graph-status " + kind;
    statusBox.textContent = text;
    retryButton.hidden = !canRetry;
  }

  function summaryStatus() {
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

  function updateCounts() {
    const g = state.graph;
    root.dataset.nodeCount = String(g ? g.order : 0);
    root.dataset.edgeCount = String(g ? g.size : 0);
  }

  // --- loading and drawing ---------------------------------------------------------------
  function graphParams() {
    const params = new URLSearchParams();
    if (state.asOf) params.set("as_of", state.asOf + "T12:00:00Z");
    params.set("include_dormant", showDormant.checked ? "1" : "0");
    params.set("include_superseded", showSuperseded.checked ? "1" : "0");
    return params.toString();
  }

  async function loadGraph() {
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

  function applyGraph(data, timing) {
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
  function runLayout(g, minIterations, maxIterations, budgetMs) {
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

  function createRenderer(g) {
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

  function redraw() {
    if (state.renderer) state.renderer.refresh();
  }

  // The IMPORTANT_LABELS most important nodes (you, then by number of memories) keep their
  // label at every zoom.
  const IMPORTANT_LABELS = 12;

  function rankImportant(g) {
    const ranked = g.nodes().sort(function (a, b) {
      const A = g.getNodeAttributes(a), B = g.getNodeAttributes(b);
      return (B.isSelf - A.isSelf) || (B.degree - A.degree) || (A.label < B.label ? -1 : 1);
    });
    state.important = new Set(ranked.slice(0, IMPORTANT_LABELS));
  }

  function nodeReducer(key, attrs) {
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

  function edgeReducer(key, attrs) {
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
  function isRecalledEdge(key) {
    const g = state.graph;
    return !!(state.recall && g && g.hasEdge(key) &&
      state.recall.fired.has(g.source(key)) && state.recall.fired.has(g.target(key)));
  }

  function recalledEdges() {
    return state.graph ? state.graph.edges().filter(isRecalledEdge) : [];
  }

  function centerOn(key) {
    const r = state.renderer;
    if (!r) return;
    const data = r.getNodeDisplayData(key);
    if (!data) return;
    const camera = r.getCamera();
    camera.animate({ x: data.x, y: data.y, ratio: Math.min(camera.ratio, 0.35) }, { duration: 400 });
  }

  function centerOnMany(keys) {
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

  // --- kind filter (doubles as the colour legend) ----------------------------------------
  function drawKindFilter() {
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
  let searchTimer = null;
  let centerTimer = null;

  function findMatches(query) {
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
  function refreshSearch(interactive) {
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

  // --- selection and the side panel -----------------------------------------------------
  function clearSelection() {
    state.selected = null;
    state.neighbours = new Set();
    state.detail = null;
    state.openSparkline = null;
  }

  function selectNode(key, options) {
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

  function closePanel() {
    clearSelection();
    delete root.dataset.selected;
    panel.replaceChildren(emptyPanel);
    redraw();
  }

  const emptyPanel = panel.firstElementChild;

  async function openPanel(key, flash, focus) {
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

  function section(title, name) {
    const s = el("section", "panel-section");
    s.dataset.section = name;
    if (title) s.appendChild(el("h3", "", title));
    return s;
  }

  function messageArea(sectionEl) {
    const p = el("p", "msg");
    p.setAttribute("role", "status");
    p.tabIndex = -1;
    p.hidden = true;
    sectionEl.appendChild(p);
    return p;
  }

  function showMessage(p, text, ok) {
    p.textContent = text;
    p.className = "msg " + (ok ? "ok" : "err");
    p.hidden = false;
  }

  function labelled(labelText, control, id) {
    const label = el("label", "", labelText);
    control.id = id;
    label.htmlFor = id;
    return label;
  }

  function renderPanel(d, flash) {
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

  function edgeRow(d, e) {
    const key = String(d.id);
    const outgoing = String(e.source && e.source.id) === key;
    const other = outgoing ? e.target : e.source;
    const li = el("li", "edge-row");
    li.dataset.edge = String(e.id);
    if (e.dormant) li.classList.add("dormant");
    if (e.superseded) li.classList.add("superseded");

    const toggle = el("button", "edge-toggle");
    toggle.type = "button";
    toggle.setAttribute("aria-expanded", "false");
    toggle.title = "Show strength over time";
    if (outgoing) {
      toggle.append(el("span", "rel", e.relation), el("span", "arrow", " → "), el("span", "other", other.name));
    } else {
      toggle.append(el("span", "other", other.name), el("span", "arrow", " → "), el("span", "rel", e.relation), el("span", "arrow", " → this"));
    }
    li.appendChild(toggle);

    const meta = el("p", "edge-meta");
    meta.append(el("span", "strength", "strength " + fmt(e.strength)),
      el("span", "", e.stability), el("span", "", "confidence " + fmt(e.confidence, 2)));
    if (e.dormant) meta.appendChild(el("span", "badge warn", "dormant"));
    if (e.superseded) meta.appendChild(el("span", "badge err", "superseded"));
    if (e.expires_at) meta.appendChild(el("span", "badge", "until " + fmtDate(e.expires_at)));
    if (e.occurred) meta.appendChild(el("span", "badge occurred", "when " + fmtOccurred(e.occurred)));
    li.appendChild(meta);

    if (e.snippet && e.snippet.text) {
      const quote = el("blockquote", "snippet");
      quote.appendChild(el("q", "", e.snippet.text));
      if (e.snippet.evidence) quote.appendChild(el("span", "evidence muted", e.snippet.evidence));
      li.appendChild(quote);
    }

    const actions = el("div", "edge-actions");
    const open = el("button", "link", "Open " + other.name);
    open.type = "button";
    open.addEventListener("click", function (event) { event.stopPropagation(); selectNode(other.id, { center: true }); });
    const forget = el("button", "link danger forget-edge", "Forget…");
    forget.type = "button";
    forget.setAttribute("aria-label", "Forget: " + (outgoing ? d.name : other.name) + " " + e.relation + " " + (outgoing ? other.name : d.name));
    forget.addEventListener("click", function (event) { event.stopPropagation(); forgetEdge(d, e); });
    actions.append(open, forget);
    li.appendChild(actions);

    const spark = el("div", "sparkline");
    spark.hidden = true;
    li.appendChild(spark);

    function toggleSpark() {
      const show = spark.hidden;
      panel.querySelectorAll(".sparkline").forEach(function (s) {
        s.hidden = true;
        const t = s.parentNode.querySelector(".edge-toggle");
        if (t) t.setAttribute("aria-expanded", "false");
      });
      if (show) {
        spark.replaceChildren(sparkline(e));
        spark.hidden = false;
        toggle.setAttribute("aria-expanded", "true");
        state.openSparkline = String(e.id);
      } else {
        state.openSparkline = null;
      }
    }
    toggle.addEventListener("click", function (event) { event.stopPropagation(); toggleSpark(); });
    li.addEventListener("click", function (event) {
      if (event.target.closest("button, a, .sparkline")) return;
      toggleSpark();
    });
    if (state.openSparkline === String(e.id)) {
      spark.replaceChildren(sparkline(e));
      spark.hidden = false;
      toggle.setAttribute("aria-expanded", "true");
    }
    return li;
  }

  // --- the strength sparkline (SPEC §5.4, computed here) ---------------------------------
  function sparkline(e) {
    const W = 300, H = 96, left = 28, right = 8, top = 8, bottom = 18;
    const now = Date.now();
    const start = now - 30 * DAY_MS, end = now + 90 * DAY_MS;
    const touched = Date.parse(e.last_touched_at);
    const s0 = Number(e.strength_at_touch);
    const wrap = el("figure", "spark");
    if (!Number.isFinite(touched) || !Number.isFinite(s0)) {
      wrap.appendChild(el("figcaption", "muted", "No strength history for this memory."));
      return wrap;
    }
    const x = function (t) { return left + (t - start) / (end - start) * (W - left - right); };
    const y = function (s) { return top + (1 - Math.max(0, Math.min(100, s)) / 100) * (H - top - bottom); };
    const graphic = svg("svg", { viewBox: "0 0 " + W + " " + H, width: W, height: H, role: "img" }, "spark-svg");
    const nowValue = strengthAt(s0, e.stability, touched, now);
    graphic.setAttribute("aria-label", "Strength over time: " + fmt(nowValue) + " today, " +
      fmt(strengthAt(s0, e.stability, touched, now + 90 * DAY_MS)) + " in 90 days");

    // axes and guides
    graphic.appendChild(svg("line", { x1: left, y1: y(0), x2: W - right, y2: y(0) }, "spark-axis"));
    graphic.appendChild(svg("line", { x1: left, y1: y(100), x2: left, y2: y(0) }, "spark-axis"));
    [0, 50, 100].forEach(function (v) {
      const t = svg("text", { x: left - 4, y: y(v) + 3, "text-anchor": "end" }, "spark-tick");
      t.textContent = String(v);
      graphic.appendChild(t);
    });
    graphic.appendChild(svg("line", { x1: left, y1: y(DORMANT_BELOW), x2: W - right, y2: y(DORMANT_BELOW) }, "spark-threshold"));
    const thr = svg("text", { x: W - right, y: y(DORMANT_BELOW) - 3, "text-anchor": "end" }, "spark-threshold-label");
    thr.textContent = "dormant below 2";
    graphic.appendChild(thr);

    // the curve, from the last touch (or the window's start) to +90 days
    const from = Math.max(start, touched);
    if (from < end) {
      let d = "";
      const steps = 120;
      for (let i = 0; i <= steps; i++) {
        const t = from + (end - from) * i / steps;
        d += (i ? "L" : "M") + x(t).toFixed(1) + "," + y(strengthAt(s0, e.stability, touched, t)).toFixed(1);
      }
      graphic.appendChild(svg("path", { d: d }, "spark-line"));
    }
    if (touched > start && touched < end) {
      graphic.appendChild(svg("circle", { cx: x(touched), cy: y(s0), r: 2.5 }, "spark-touch"));
    }
    const markers = [[now, "today", "spark-today"]];
    if (state.asOf) markers.push([Date.parse(state.asOf + "T12:00:00Z"), "as of", "spark-asof"]);
    if (e.expires_at) markers.push([Date.parse(e.expires_at), "expires", "spark-expiry"]);
    markers.forEach(function (m) {
      if (!(m[0] >= start && m[0] <= end)) return;
      graphic.appendChild(svg("line", { x1: x(m[0]), y1: top, x2: x(m[0]), y2: y(0) }, m[2]));
      const label = svg("text", { x: x(m[0]), y: H - 4, "text-anchor": "middle" }, "spark-label");
      label.textContent = m[1];
      graphic.appendChild(label);
    });
    graphic.appendChild(svg("circle", { cx: x(now), cy: y(nowValue), r: 3 }, "spark-now"));
    wrap.appendChild(graphic);

    const lambda = LAMBDA[e.stability] === undefined ? LAMBDA.stable : LAMBDA[e.stability];
    let caption = "Now " + fmt(nowValue) + " (" + fmt(s0) + " when last touched " + fmtDate(e.last_touched_at) + "). ";
    if (lambda === 0) caption += "This kind of memory does not fade.";
    else if (nowValue < DORMANT_BELOW) caption += "Already dormant.";
    else {
      const days = Math.log(nowValue / DORMANT_BELOW) / lambda;
      caption += "Goes dormant in about " + plural(Math.round(days), "day", "days") + " unless it comes up again.";
    }
    wrap.appendChild(el("figcaption", "muted", caption));
    return wrap;
  }

  // --- confirmations ---------------------------------------------------------------------
  function confirmAction(text, okLabel) {
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
  function busy(on, sectionName, text) {
    const p = on && sectionName && state.messages && state.messages[sectionName];
    if (p) { p.textContent = text || "Working…"; p.className = "msg pending"; p.hidden = false; }
    panel.querySelectorAll("button, input, select").forEach(function (c) {
      if (on) { c.dataset.wasDisabled = c.disabled ? "1" : ""; c.disabled = true; }
      else { c.disabled = c.dataset.wasDisabled === "1"; }
    });
    if (on) panel.setAttribute("aria-busy", "true"); else panel.removeAttribute("aria-busy");
  }

  function failed(sectionName, err) {
    busy(false);
    const p = state.messages && state.messages[sectionName];
    if (p) { showMessage(p, err.detail || "That didn't work.", false); p.focus(); }
  }

  // --- corrections -----------------------------------------------------------------------
  async function patchNode(d, body, sectionName, successText) {
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

  async function forgetEdge(d, e) {
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

  function dropEdgeLocally(edgeKey) {
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

  function dropNodeLocally(key) {
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

  async function forgetNode(d) {
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

  async function mergeInto(d, intoId, intoName) {
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

  async function revertMerge(d, m, button) {
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

  // --- recall preview --------------------------------------------------------------------
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

  function renderRecall(record) {
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
})();
