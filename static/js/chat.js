/* The chat page: a websocket per conversation, streamed replies, the "recalled" panel,
   reconnection without losing or duplicating a message. No inline script (CSP). */
(function () {
  "use strict";
  const root = document.getElementById("chat");
  if (!root) return;

  const list = document.getElementById("messages");
  const composer = document.getElementById("composer");
  const input = document.getElementById("message");
  const sendButton = document.getElementById("send");
  const errorBox = document.getElementById("chat-error");
  const connection = document.getElementById("connection");
  const endForm = document.getElementById("end-form");
  const endButton = document.getElementById("end-button");
  const endedNote = document.getElementById("ended-note");
  const renameForm = document.getElementById("rename-form");
  const render = window.PegasusMarkdown.render;
  const maxChars = Number(root.dataset.maxChars) || 8000;

  const state = {
    socket: null,
    lastId: 0,
    pending: null,        // {client_id, text} awaiting "done"
    streaming: null,      // the <li> receiving deltas
    streamText: "",
    ended: root.dataset.status === "ended",
    retry: 0,
    seen: new Set(),
  };

  function csrfToken() {
    const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    return match ? decodeURIComponent(match[1]) : "";
  }

  function newClientId() {
    if (window.crypto && window.crypto.randomUUID) return window.crypto.randomUUID();
    return String(Date.now()) + "-" + Math.random().toString(16).slice(2);
  }

  function showError(text) {
    errorBox.textContent = text;
    errorBox.hidden = !text;
  }

  function setConnection(text, cls) {
    connection.textContent = text;
    connection.className = "badge " + (cls || "");
  }

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function recallPanel(record) {
    const details = el("details", "recall");
    const lines = record.memory_lines || [];
    const snippets = record.context_snippets || [];
    const summary = el("summary", "", lines.length || snippets.length
      ? "Recalled " + lines.length + " memor" + (lines.length === 1 ? "y" : "ies") +
        (snippets.length ? " · " + snippets.length + " snippet" + (snippets.length === 1 ? "" : "s") : "")
      : "Nothing recalled");
    details.appendChild(summary);
    if (lines.length) {
      details.appendChild(el("h4", "", "Memories"));
      const ul = el("ul", "memory-lines");
      lines.forEach(function (line) { ul.appendChild(el("li", "", line)); });
      details.appendChild(ul);
    }
    if (snippets.length) {
      details.appendChild(el("h4", "", "In your words"));
      const ul = el("ul", "snippets");
      snippets.forEach(function (s) {
        const li = el("li");
        li.appendChild(el("span", "node", s.node + ": "));
        li.appendChild(el("q", "", s.text));
        ul.appendChild(li);
      });
      details.appendChild(ul);
    }
    const seeds = record.seeds || [];
    const fired = record.fired || [];
    if (seeds.length || fired.length) {
      details.appendChild(el("h4", "", "How it was found"));
      const table = el("table", "fired");
      const head = el("tr");
      ["node", "score", "via", "hop"].forEach(function (h) { head.appendChild(el("th", "", h)); });
      table.appendChild(head);
      fired.forEach(function (f) {
        const row = el("tr");
        row.appendChild(el("td", "", f.name + " (" + f.kind + ")"));
        row.appendChild(el("td", "", Number(f.score).toFixed(2)));
        row.appendChild(el("td", "", f.direction));
        row.appendChild(el("td", "", String(f.hop)));
        table.appendChild(row);
      });
      details.appendChild(table);
      if (seeds.length) {
        details.appendChild(el("p", "muted", "Seeded by: " + seeds.map(function (s) {
          return s.key + " → " + s.name + " (" + Number(s.similarity).toFixed(2) + ")";
        }).join(", ")));
      }
      if (record.words && record.words.length) {
        details.appendChild(el("p", "muted", "Words: " + record.words.join(", ")));
      }
    }
    return details;
  }

  function addMessage(message) {
    if (message.id && state.seen.has(message.id)) return null;
    if (message.id) { state.seen.add(message.id); state.lastId = Math.max(state.lastId, message.id); }
    const li = el("li", "message " + message.role);
    li.dataset.id = message.id || "";
    const who = el("div", "who", message.role === "user" ? "You" : "Pegasus" + (message.offline ? " · offline" : ""));
    li.appendChild(who);
    const body = el("div", "body");
    if (message.role === "assistant") body.appendChild(render(message.text)); else body.textContent = message.text;
    li.appendChild(body);
    if (message.role === "assistant" && message.recall) li.appendChild(recallPanel(message.recall));
    list.appendChild(li);
    li.scrollIntoView({ block: "end" });
    return li;
  }

  function startStreaming(record) {
    const li = el("li", "message assistant streaming");
    li.appendChild(el("div", "who", "Pegasus"));
    const body = el("div", "body");
    body.appendChild(el("span", "typing", "…"));
    li.appendChild(body);
    li.appendChild(recallPanel(record));
    list.appendChild(li);
    state.streaming = li;
    state.streamText = "";
    li.scrollIntoView({ block: "end" });
  }

  function appendDelta(text) {
    if (!state.streaming) startStreaming({});
    state.streamText += text;
    const body = state.streaming.querySelector(".body");
    body.replaceChildren(render(state.streamText));
    state.streaming.scrollIntoView({ block: "end" });
  }

  function finishTurn(message) {
    if (state.streaming) { state.streaming.remove(); state.streaming = null; }
    addMessage(message);
    state.pending = null;
    setBusy(false);
    input.focus();
  }

  function setBusy(busy) {
    sendButton.disabled = busy;
    sendButton.textContent = busy ? "Sending…" : "Send";
  }

  function markEnded() {
    const wasOpen = !state.ended;
    state.ended = true;
    composer.hidden = true;
    endButton.disabled = true;
    endedNote.hidden = false;
    const status = document.querySelector(
      '.conversation-list li[data-conversation="' + root.dataset.conversationId + '"] .status');
    if (status) status.textContent = "ended";
    if (wasOpen) showError("");
  }

  function showTitle(text) {
    // The server titles a conversation after its first message; show it without a reload.
    const title = document.getElementById("title");
    if (!title || title.value || !text) return;
    title.value = text;
    const current = document.querySelector(".conversation-list li.current a");
    if (current) current.textContent = text;
  }

  function handle(event) {
    if (event.type === "recall") {
      if (event.user_message) {
        const text = event.user_message.text.replace(/\s+/g, " ");
        showTitle(text.length <= 60 ? text : text.slice(0, 57).trim() + "…");
      }
      if (event.user_message) {
        const pendingLi = list.querySelector("li.message.user.pending");
        if (pendingLi) pendingLi.remove();
        addMessage(event.user_message);
      }
      startStreaming(event.record);
    } else if (event.type === "delta") {
      appendDelta(event.text);
    } else if (event.type === "done") {
      const pendingLi = list.querySelector("li.message.user.pending");
      if (pendingLi && event.user_message) { pendingLi.remove(); addMessage(event.user_message); }
      finishTurn(event.message);
    } else if (event.type === "message") {
      // Stored by another tab (or an API client) on this conversation.
      if (event.title) showTitle(event.title);
      addMessage(event.message);
    } else if (event.type === "ended") {
      markEnded();
    } else if (event.type === "error") {
      if (state.streaming) { state.streaming.remove(); state.streaming = null; }
      showError(event.detail || "Something went wrong.");
      if (event.code === "conversation_ended") markEnded();
      const pendingLi = list.querySelector("li.message.user.pending");
      if (pendingLi && event.code !== "llm_unavailable") {
        input.value = pendingLi.querySelector(".body").textContent;
        pendingLi.remove();
      }
      state.pending = null;
      setBusy(false);
    }
  }

  async function catchUp() {
    try {
      const response = await fetch(root.dataset.messagesUrl + "?after=" + state.lastId, {
        headers: { "Accept": "application/json" }, credentials: "same-origin",
      });
      if (!response.ok) return;
      const data = await response.json();
      data.messages.forEach(function (m) {
        if (state.pending && m.role === "user" && m.client_id === state.pending.client_id) {
          const pendingLi = list.querySelector("li.message.user.pending");
          if (pendingLi) pendingLi.remove();
        }
        addMessage(m);
        if (state.pending && m.role === "assistant" && m.client_id === state.pending.client_id) {
          state.pending = null;
          setBusy(false);
        }
      });
      if (data.status === "ended") markEnded();
    } catch (err) { /* the socket's own retry loop reports the outage */ }
  }

  function connect() {
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    const socket = new WebSocket(scheme + location.host + root.dataset.wsPath);
    state.socket = socket;
    setConnection(state.retry ? "reconnecting…" : "connecting…", "warn");
    socket.addEventListener("open", async function () {
      state.retry = 0;
      setConnection("connected", "ok");
      showError("");
      await catchUp();
      if (state.pending) {
        // A message sent before the drop: resend with the same client_id; the server
        // answers it once (or replays the stored reply) instead of storing it twice.
        socket.send(JSON.stringify({ type: "message", text: state.pending.text, client_id: state.pending.client_id }));
      }
    });
    socket.addEventListener("message", function (msg) {
      try { handle(JSON.parse(msg.data)); } catch (err) { showError("The server sent something unreadable."); }
    });
    socket.addEventListener("close", function (ev) {
      if (ev.code === 4401 || ev.code === 4404) {
        setConnection("unavailable", "err");
        showError(ev.code === 4401 ? "Your session has expired; sign in again." : "This conversation does not exist.");
        return;
      }
      state.retry += 1;
      const delay = Math.min(10000, 500 * Math.pow(2, state.retry - 1));
      setConnection("offline — retrying", "err");
      if (state.streaming) { state.streaming.remove(); state.streaming = null; }
      setTimeout(connect, delay);
    });
  }

  function send(text) {
    text = text.trim();
    if (!text || state.pending || state.ended) return;
    if (text.length > maxChars) { showError(tooLong(text.length)); return; }
    showError("");
    state.pending = { client_id: newClientId(), text: text };
    const li = addMessage({ role: "user", text: text });
    li.classList.add("pending");
    input.value = "";
    setBusy(true);
    if (state.socket && state.socket.readyState === WebSocket.OPEN) {
      state.socket.send(JSON.stringify({ type: "message", text: text, client_id: state.pending.client_id }));
    }
  }

  function tooLong(length) {
    return "This message has " + length + " characters; messages are limited to " + maxChars +
      ". Shorten it or split it into several messages — nothing was sent.";
  }

  // Say so as soon as a paste goes over the limit, rather than cutting it mid-word.
  input.addEventListener("input", function () {
    const length = input.value.trim().length;
    if (length > maxChars) showError(tooLong(length));
    else if (errorBox.textContent.indexOf("messages are limited to") !== -1) showError("");
  });

  composer.addEventListener("submit", function (ev) { ev.preventDefault(); send(input.value); });
  input.addEventListener("keydown", function (ev) {
    if (ev.key === "Enter" && !ev.shiftKey && !ev.isComposing) { ev.preventDefault(); send(input.value); }
  });

  endForm.addEventListener("submit", function (ev) {
    if (state.socket && state.socket.readyState === WebSocket.OPEN) {
      ev.preventDefault();
      endButton.disabled = true;
      state.socket.send(JSON.stringify({ type: "end" }));
    }
  });

  renameForm.addEventListener("submit", async function (ev) {
    ev.preventDefault();
    const body = new URLSearchParams(new FormData(renameForm));
    const response = await fetch(root.dataset.renameUrl, {
      method: "POST", body: body, credentials: "same-origin",
      headers: { "Accept": "application/json", "X-CSRFToken": csrfToken() },
    });
    if (!response.ok) showError("Could not rename the conversation.");
  });

  const history = JSON.parse(document.getElementById("history").textContent);
  history.forEach(addMessage);
  if (state.ended) markEnded();
  connect();
})();
