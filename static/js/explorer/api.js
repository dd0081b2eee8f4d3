/* The JSON API client (same-origin session, CSRF token, one error shape). Part of the memory explorer: see main.js. */

import { csrfToken } from "./util.js";

// --- API -------------------------------------------------------------------------------
export function ApiError(code, detail, status) {
  this.code = code; this.detail = detail; this.status = status || 0;
}

export async function api(method, url, body) {
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
