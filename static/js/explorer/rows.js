/* One edge's row in the side panel, and its strength sparkline. Part of the memory explorer: see main.js. */

import { forgetEdge } from "./actions.js";
import { DAY_MS, DECAY, DORMANT_BELOW, panel, state } from "./context.js";
import { rate, strengthAt } from "./decay.js";
import { selectNode } from "./panel.js";
import { el, fmt, fmtDate, fmtOccurred, plural, svg } from "./util.js";

export function edgeRow(d, e) {
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
export function sparkline(e) {
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
  const nowValue = strengthAt(DECAY, s0, e.stability, touched, now);
  graphic.setAttribute("aria-label", "Strength over time: " + fmt(nowValue) + " today, " +
    fmt(strengthAt(DECAY, s0, e.stability, touched, now + 90 * DAY_MS)) + " in 90 days");

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
  thr.textContent = "dormant below " + DORMANT_BELOW;
  graphic.appendChild(thr);

  // the curve, from the last touch (or the window's start) to +90 days
  const from = Math.max(start, touched);
  if (from < end) {
    let d = "";
    const steps = 120;
    for (let i = 0; i <= steps; i++) {
      const t = from + (end - from) * i / steps;
      d += (i ? "L" : "M") + x(t).toFixed(1) + "," + y(strengthAt(DECAY, s0, e.stability, touched, t)).toFixed(1);
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

  const lambda = rate(DECAY, e.stability);
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
