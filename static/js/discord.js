/* The Discord panel of the host's console (templates/discord_bridge/panel.html).
   It listens on the host-only websocket (/ws/games/<pk>/host/) and re-fetches the
   panel when a proposal arrives or the game changes; Enter confirms the
   pre-filled proposal of the current step; after a confirmation the console
   fragment is refreshed. Kept apart from console.js on purpose. */
(function () {
  "use strict";
  var socket = null;
  var retryMs = 1000;

  function panel() { return document.getElementById("discord-panel"); }

  function refreshPanel() {
    var p = panel();
    if (!p || !window.htmx) return;
    window.htmx.ajax("GET", p.dataset.panelUrl, { target: "#discord-panel", swap: "outerHTML" });
  }

  function refreshConsole() {
    var c = document.getElementById("console");
    var poller = document.getElementById("poller");
    if (!c || !poller || !window.htmx) return;
    var url = poller.getAttribute("hx-get").split("?")[0];
    window.htmx.ajax("GET", url, { target: "#console", swap: "outerHTML" });
  }

  function connect() {
    var p = panel();
    if (!p || !p.dataset.wsPath || socket) return;
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    socket = new WebSocket(scheme + location.host + p.dataset.wsPath);
    socket.onopen = function () { retryMs = 1000; };
    socket.onmessage = function () { refreshPanel(); };
    socket.onclose = function () {
      socket = null;
      setTimeout(connect, retryMs);
      retryMs = Math.min(retryMs * 2, 15000);
    };
  }

  function consoleStep() {
    var c = document.getElementById("console");
    if (!c) return "";
    var m = /(?:^|\s)step-(\S+)/.exec(c.className);
    return m ? m[1] : "";
  }

  // Capture phase: Enter confirms the Discord proposal before console.js sees it.
  window.addEventListener("keydown", function (e) {
    if (e.key !== "Enter" || e.repeat || e.altKey || e.ctrlKey || e.metaKey) return;
    var t = e.target;
    var typing = t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable);
    var form = document.getElementById("discord-confirm");
    if (!form || document.querySelector("dialog[open]")) return;
    if (typing && !form.contains(t)) return;
    if (t && t.closest && t.closest("button, a, summary") && !form.contains(t)) return;
    // Only the proposal of the step on screen; a stale panel never confirms.
    if (form.dataset.step !== consoleStep()) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    form.requestSubmit();
  }, true);

  document.addEventListener("discord-applied", refreshConsole);
  document.addEventListener("htmx:afterSwap", function (e) {
    if (e.detail && e.detail.target && e.detail.target.id === "console") {
      var p = panel();
      var c = document.getElementById("console");
      if (p && c && p.dataset.seq !== c.dataset.seq) refreshPanel();
    }
    connect();
  });
  document.addEventListener("DOMContentLoaded", connect);
  // Without the websocket (a proxy without upgrades), a slow poll keeps the panel fresh.
  setInterval(function () { if (!socket || socket.readyState !== 1) refreshPanel(); }, 5000);
})();
