/* A small, safe Markdown renderer: builds DOM nodes with textContent only, so neither the
   model nor the user can inject HTML. Supports paragraphs, line breaks, fenced code,
   inline code, **bold**, *italic*, "- " / "1. " lists, "> " quotes and http(s) links. */
(function () {
  "use strict";

  function inline(parent, text) {
    const pattern = /(`[^`\n]+`)|(\*\*[^*\n]+\*\*)|(\*[^*\n]+\*)|(https?:\/\/[^\s<>()]+[^\s<>().,;:!?'"])/g;
    let last = 0;
    let match;
    while ((match = pattern.exec(text)) !== null) {
      if (match.index > last) parent.appendChild(document.createTextNode(text.slice(last, match.index)));
      const token = match[0];
      let el;
      if (match[1]) { el = document.createElement("code"); el.textContent = token.slice(1, -1); }
      else if (match[2]) { el = document.createElement("strong"); el.textContent = token.slice(2, -2); }
      else if (match[3]) { el = document.createElement("em"); el.textContent = token.slice(1, -1); }
      else {
        el = document.createElement("a");
        el.href = token; el.textContent = token; el.rel = "noopener noreferrer nofollow"; el.target = "_blank";
      }
      parent.appendChild(el);
      last = match.index + token.length;
    }
    if (last < text.length) parent.appendChild(document.createTextNode(text.slice(last)));
  }

  function render(text) {
    const root = document.createDocumentFragment();
    const lines = String(text).replace(/\r\n/g, "\n").split("\n");
    let i = 0;
    while (i < lines.length) {
      const line = lines[i];
      if (/^```/.test(line)) {
        const pre = document.createElement("pre");
        const code = document.createElement("code");
        const body = [];
        i += 1;
        while (i < lines.length && !/^```/.test(lines[i])) { body.push(lines[i]); i += 1; }
        i += 1;
        code.textContent = body.join("\n");
        pre.appendChild(code);
        root.appendChild(pre);
        continue;
      }
      if (/^\s*$/.test(line)) { i += 1; continue; }
      const list = line.match(/^\s*([-*]|\d+\.)\s+/);
      if (list) {
        const ordered = /\d/.test(list[1]);
        const el = document.createElement(ordered ? "ol" : "ul");
        while (i < lines.length && /^\s*([-*]|\d+\.)\s+/.test(lines[i])) {
          const li = document.createElement("li");
          inline(li, lines[i].replace(/^\s*([-*]|\d+\.)\s+/, ""));
          el.appendChild(li);
          i += 1;
        }
        root.appendChild(el);
        continue;
      }
      if (/^>\s?/.test(line)) {
        const quote = document.createElement("blockquote");
        const body = [];
        while (i < lines.length && /^>\s?/.test(lines[i])) { body.push(lines[i].replace(/^>\s?/, "")); i += 1; }
        inline(quote, body.join("\n"));
        root.appendChild(quote);
        continue;
      }
      const p = document.createElement("p");
      const body = [];
      while (i < lines.length && !/^\s*$/.test(lines[i]) && !/^```/.test(lines[i]) &&
             !/^\s*([-*]|\d+\.)\s+/.test(lines[i]) && !/^>\s?/.test(lines[i])) {
        body.push(lines[i]); i += 1;
      }
      body.forEach(function (part, n) {
        if (n > 0) p.appendChild(document.createElement("br"));
        inline(p, part);
      });
      root.appendChild(p);
    }
    return root;
  }

  window.PegasusMarkdown = { render: render };
})();
