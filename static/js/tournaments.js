// Live standings: a read-only websocket (tournaments/consumers.py). The server
// sends the standings fragment on connect (a snapshot) and after every
// finished game; a stage view re-fetches its own fragment instead.
(function () {
  "use strict";
  var box = document.getElementById("standings-live");
  if (!box || !("WebSocket" in window)) return;
  var status = document.getElementById("live-status");
  var lang = document.documentElement.lang || "ru";
  var delay = 1000;
  // The first frame of the first connection is the state the page already
  // shows; after a reconnect the snapshot may hold what was missed.
  var first = true;

  function replace(html, flash) {
    var current = document.getElementById("standings");
    if (!current) return;
    var tpl = document.createElement("template");
    tpl.innerHTML = html.trim();
    var fresh = tpl.content.firstElementChild;
    if (fresh && fresh.id === "standings") {
      current.replaceWith(fresh);
      if (!flash) return;
      fresh.classList.add("just-updated");
      setTimeout(function () { fresh.classList.remove("just-updated"); }, 1200);
    }
  }

  function refetch() {
    fetch(box.dataset.refresh, { headers: { "HX-Request": "true" }, credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) { if (html) replace(html, true); })
      .catch(function () {});
  }

  function connect() {
    var proto = location.protocol === "https:" ? "wss://" : "ws://";
    var ws = new WebSocket(proto + location.host + box.dataset.ws + "?lang=" + encodeURIComponent(lang));
    ws.onopen = function () { delay = 1000; if (status) status.hidden = false; };
    ws.onmessage = function (ev) {
      var news = !first;
      first = false;
      if (box.dataset.live === "1") replace(ev.data, news);
      else if (news) refetch();
    };
    ws.onclose = function () {
      if (status) status.hidden = true;
      setTimeout(connect, delay);
      delay = Math.min(delay * 2, 30000);
    };
  }
  connect();
})();
