/* The conversation list on narrow screens: folded behind a toggle (CSS shows the toggle only
   below 720 px; on wider screens the list is always visible). No inline script (CSP). */
(function () {
  "use strict";
  const sidebar = document.getElementById("chat-sidebar");
  const toggle = document.getElementById("conversations-toggle");
  if (!sidebar || !toggle) return;
  toggle.addEventListener("click", function () {
    const open = !sidebar.classList.contains("open");
    sidebar.classList.toggle("open", open);
    toggle.setAttribute("aria-expanded", open ? "true" : "false");
  });
})();
