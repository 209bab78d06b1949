// Live leaderboard: a read-only websocket (players/consumers.py) says that the
// ratings changed; the page re-fetches its own fragment (its filters are in
// data-refresh). The database stays the truth: a reconnect re-fetches too.
(function () {
  "use strict";
  var box = document.getElementById("ratings-live");
  if (!box || !("WebSocket" in window)) return;
  var status = document.getElementById("live-status");
  var delay = 1000;
  var first = true;

  function refetch() {
    fetch(box.dataset.refresh, { headers: { "HX-Request": "true" }, credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        var current = document.getElementById("leaderboard");
        if (!html || !current) return;
        var tpl = document.createElement("template");
        tpl.innerHTML = html.trim();
        var fresh = tpl.content.firstElementChild;
        if (fresh && fresh.id === "leaderboard") {
          current.replaceWith(fresh);
          fresh.classList.add("just-updated");
          setTimeout(function () { fresh.classList.remove("just-updated"); }, 1200);
        }
      })
      .catch(function () {});
  }

  function connect() {
    var proto = location.protocol === "https:" ? "wss://" : "ws://";
    var ws = new WebSocket(proto + location.host + box.dataset.ws);
    ws.onopen = function () { delay = 1000; if (status) status.hidden = false; };
    ws.onmessage = function () {
      if (!first) refetch();
      first = false;
    };
    ws.onclose = function () {
      if (status) status.hidden = true;
      first = false; // what was missed while away is fetched on the next hello
      setTimeout(connect, delay);
      delay = Math.min(delay * 2, 30000);
    };
  }
  connect();
})();
