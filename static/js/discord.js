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

  // One fetch at a time; an event during a fetch asks for one more after it,
  // so the last event is always reflected (htmx would drop the second request).
  var inFlight = false;
  var again = false;

  function refreshPanel() {
    var p = panel();
    if (!p) return;
    if (inFlight) { again = true; return; }
    inFlight = true;
    again = false;
    fetch(p.dataset.panelUrl, { credentials: "same-origin", headers: { "HX-Request": "true" } })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        var current = panel();
        if (html && current) {
          var holder = document.createElement("div");
          holder.innerHTML = html.trim();
          var fresh = holder.firstElementChild;
          // Keep what the host is typing: no swap while he edits the form.
          var editing = current.contains(document.activeElement) && /^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement.tagName);
          if (fresh && !editing) {
            current.replaceWith(fresh);
            if (window.htmx) window.htmx.process(fresh);
          }
        }
      })
      .catch(function () {})
      .then(function () {
        inFlight = false;
        if (again) refreshPanel();
      });
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
  // A slow poll as well: the channel layer may drop a message (DESIGN.md), and
  // without the websocket (a proxy without upgrades) it is the only way.
  setInterval(function () { if (!document.hidden) refreshPanel(); }, 5000);
})();
