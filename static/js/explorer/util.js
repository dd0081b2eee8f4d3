/* Small helpers: element builders, formatting, colours and edge sizes. Part of the memory explorer: see main.js. */

import { $, KIND_COLORS, SVG_NS } from "./context.js";

// --- small helpers ---------------------------------------------------------------------
export function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

export function svg(tag, attrs, cls) {
  const node = document.createElementNS(SVG_NS, tag);
  Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, String(attrs[k])); });
  if (cls) node.setAttribute("class", cls);
  return node;
}

export function fill(template, id) {
  return template.replace("{id}", encodeURIComponent(String(id)));
}

export function csrfToken() {
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return match ? decodeURIComponent(match[1]) : "";
}

export function fmt(value, digits) {
  const n = Number(value);
  return Number.isFinite(n) ? n.toFixed(digits === undefined ? 1 : digits) : "–";
}

export function fmtDate(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return d.toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric" });
}

// An edge's "occurred" (SPEC §5.5): a day, a month, a year or a day range, shown as dates.
export function fmtOccurred(text) {
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

export function plural(n, one, many) { return n + " " + (n === 1 ? one : many); }

export function fold(text) {
  return String(text || "").normalize("NFKD").replace(/[\u0300-\u036f]/g, "")
    .toLowerCase().replace(/\s+/g, " ").trim();
}

export function mulberry32(seed) {
  let a = seed >>> 0;
  return function () {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function kindColor(kind) { return KIND_COLORS[kind] || KIND_COLORS.OTHER; }

export function edgeColor(edge) {
  const s = Math.max(0, Math.min(1, (Number(edge.strength) || 0) / 100));
  if (edge.superseded) return "rgba(194, 37, 92, 0.45)";
  if (edge.dormant) return "rgba(217, 119, 6, 0.45)";
  return "rgba(55, 65, 95, " + (0.08 + 0.72 * s).toFixed(3) + ")";
}

export function edgeSize(edge) { return 0.6 + 2.2 * Math.max(0, Math.min(1, (edge.strength || 0) / 100)); }
