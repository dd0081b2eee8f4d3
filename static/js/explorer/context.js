/* The page's constants, its elements (found by id under #explorer) and the shared state. Part of the memory explorer: see main.js. */

import { DAY_MS } from "./decay.js";

export const scriptStart = performance.now();
export const root = document.getElementById("explorer");
export const PG = window.PegasusGraph;

// --- constants -------------------------------------------------------------------------
export const SVG_NS = "http://www.w3.org/2000/svg";
export { DAY_MS };
export const KIND_COLORS = {
  PERSON: "#5b5bd6", ORG: "#0c8599", PLACE: "#2b8a3e", EVENT: "#e8590c",
  THING: "#8d5a2b", TOPIC: "#c2255c", PREFERENCE: "#d4a000", OTHER: "#6b7280",
};
export const KIND_LABELS = {
  PERSON: "People", ORG: "Organisations", PLACE: "Places", EVENT: "Events", THING: "Things",
  TOPIC: "Topics", PREFERENCE: "Preferences", OTHER: "Other",
};
export const DIMMED_NODE = "#cfd0db";
export const SELECTED_EDGE = "rgba(91, 91, 214, 0.95)";
export const CROSSED_EDGE = "rgba(230, 73, 0, 0.95)";
export const FADED_EDGE = "rgba(120, 120, 140, 0.05)";
// Above this many edges sigma draws 1px GL lines instead of quads: several times faster.
export const FAST_EDGES_ABOVE = 4000;
// Layout budget: a synchronous ForceAtlas2 run bounded in iterations and in time, so a
// 5 000-node / 20 000-edge graph still draws within a few seconds.
export const LAYOUT_BUDGET_MS = 700;
export const LAYOUT_SEED = 1729;

export const ds = root ? root.dataset : {};
export const URLS = {
  graph: ds.graphUrl, node: ds.nodeUrl, edge: ds.edgeUrl, merge: ds.mergeUrl,
  revert: ds.revertUrl, recall: ds.recallUrl, conversation: ds.conversationUrl,
};
// SPEC §5.4's decay constants (λ per stability, the dormancy threshold, the exponent's floor),
// from memory.core.decay.client_constants(): the page never writes its own copy.
export const DECAY = Object.assign({ lambda: {} }, JSON.parse(ds.decay || "{}"));
export const DORMANT_BELOW = DECAY.dormantBelow;
export const ALL_KINDS = (ds.kinds || "").split(",").filter(Boolean);

export const $ = function (id) { return document.getElementById(id); };
export const container = $("graph");
export const statusBox = $("graph-status");
export const retryButton = $("graph-retry");
export const searchInput = $("explorer-search");
export const searchResults = $("search-results");
export const searchCount = $("search-count");
export const kindFilter = $("kind-filter");
export const asOfInput = $("as-of");
export const asOfNow = $("as-of-now");
export const showDormant = $("show-dormant");
export const showSuperseded = $("show-superseded");
export const panel = $("panel");
export const recallForm = $("recall-form");
export const recallInput = $("recall-input");
export const recallSubmit = $("recall-submit");
export const recallClear = $("recall-clear");
export const recallResult = $("recall-result");
export const dialog = $("confirm-dialog");

export const state = {
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
