/* Live board / stream overlay client.
 *
 * Frames are HTML: top-level elements with ids (hx-swap-oob), led by
 * #board-meta that carries data-seq (the game's revision) and data-at (ms,
 * orders clock-only updates of the same revision). The client
 *  - replaces each element of a frame by id, never going backwards;
 *  - fetches a snapshot when it sees a gap in seq (the channel layer may drop);
 *  - reconnects after ANY close (1000 included: daphne closes with 1000 when
 *    its websocket_timeout expires), with exponential backoff and jitter;
 *  - in overlay mode holds every live frame back by data-delay-ms;
 *  - counts the clock down locally from data-remaining-ms (nothing ticks on
 *    the server).
 */
(function () {
  "use strict";
  var root = document.getElementById("board");
  if (!root || !root.dataset.boardWs) return;

  var overlay = root.dataset.mode === "overlay";
  var wsPath = root.dataset.boardWs;
  var snapshotUrl = root.dataset.stateUrl;
  var conn = document.getElementById("board-conn");

  var applied = readMeta(document.getElementById("board-meta")) || { seq: 0, at: 0 };
  var received = overlay ? null : { seq: applied.seq, at: applied.at }; // null: no baseline yet
  var delayMs = overlay ? applied.delay : 0;

  var ws = null;
  var attempt = 0;
  var reconnectTimer = null;
  var openedAt = 0;
  var snapshotPending = false;

  function readMeta(el) {
    if (!el) return null;
    return {
      seq: parseInt(el.dataset.seq || "0", 10),
      at: parseInt(el.dataset.at || "0", 10),
      delay: parseInt(el.dataset.delayMs || "0", 10),
      snapshot: el.dataset.full === "1",
      asOf: el.dataset.asOf === "1",
    };
  }

  function newer(a, b) {
    return a.seq > b.seq || (a.seq === b.seq && a.at >= b.at);
  }

  function setConn(state) {
    if (!conn) return;
    conn.dataset.state = state;
    var text = conn.querySelector(".board-conn-text");
    if (text) {
      var label = text.dataset["text" + state.charAt(0).toUpperCase() + state.slice(1)];
      if (label) text.textContent = label;
    }
  }

  // --- frames -------------------------------------------------------------

  function parse(html) {
    var tpl = document.createElement("template");
    tpl.innerHTML = html;
    return { content: tpl.content, meta: readMeta(tpl.content.getElementById ? tpl.content.getElementById("board-meta") : tpl.content.querySelector("#board-meta")) };
  }

  function apply(frame) {
    var meta = frame.meta;
    if (!meta || !newer(meta, applied)) return; // never go backwards
    var children = Array.prototype.slice.call(frame.content.children);
    children.forEach(function (el) {
      if (!el.id) return;
      var current = document.getElementById(el.id);
      if (current) current.replaceWith(el);
    });
    applied = { seq: meta.seq, at: meta.at };
    startClock();
    startPause();
    // What is on screen now (after the overlay's delay): overlay-obs.js follows it.
    var shown = document.getElementById("board-meta");
    document.dispatchEvent(new CustomEvent("board:applied", { detail: { scene: shown ? shown.dataset.scene || "" : "" } }));
  }

  function receive(html, fromSnapshotFetch) {
    var frame = parse(html);
    var meta = frame.meta;
    if (!meta) return;
    if (overlay) delayMs = meta.delay;

    if (meta.snapshot) {
      if (meta.asOf) {
        // The game as it was delay ago: show it now, and fetch the state as of
        // the connection time when that moment is due (frames sent in the
        // meantime never reached us).
        apply(frame);
        received = null;
        if (!fromSnapshotFetch) scheduleSnapshot();
        return;
      }
      received = received && !newer(meta, received) ? received : { seq: meta.seq, at: meta.at };
      apply(frame);
      return;
    }

    if (received && meta.seq > received.seq + 1) scheduleSnapshot(); // a frame was lost
    if (!received || newer(meta, received)) received = { seq: meta.seq, at: meta.at };

    if (delayMs > 0) {
      setTimeout(function () { apply(frame); }, delayMs);
    } else {
      apply(frame);
    }
  }

  function scheduleSnapshot() {
    if (snapshotPending) return;
    snapshotPending = true;
    // With a delay, the state we missed is due on screen only later.
    setTimeout(fetchSnapshot, delayMs > 0 ? delayMs : 0);
  }

  function fetchSnapshot() {
    fetch(snapshotUrl, { cache: "no-store", credentials: "same-origin", headers: { Accept: "text/html" } })
      .then(function (r) {
        if (!r.ok) throw new Error("snapshot " + r.status);
        return r.text();
      })
      .then(function (html) {
        snapshotPending = false;
        receive(html, true);
      })
      .catch(function () {
        snapshotPending = false;
      });
  }

  // --- websocket with reconnection -------------------------------------------

  function connect() {
    reconnectTimer = null;
    var proto = location.protocol === "https:" ? "wss://" : "ws://";
    setConn("connecting");
    try {
      ws = new WebSocket(proto + location.host + wsPath);
    } catch (e) {
      scheduleReconnect(1006);
      return;
    }
    var sock = ws;
    var connectTimeout = setTimeout(function () {
      if (sock.readyState === WebSocket.CONNECTING) sock.close();
    }, 10000);
    sock.onopen = function () {
      clearTimeout(connectTimeout);
      openedAt = Date.now();
      setConn("live");
    };
    sock.onmessage = function (ev) {
      if (typeof ev.data === "string") receive(ev.data, false);
    };
    sock.onclose = function (ev) {
      clearTimeout(connectTimeout);
      if (ws !== sock) return;
      ws = null;
      scheduleReconnect(ev.code);
    };
  }

  function scheduleReconnect(code) {
    if (reconnectTimer) return;
    setConn("offline");
    // A connection that lived a while was healthy: start the backoff afresh.
    if (openedAt && Date.now() - openedAt > 5000) attempt = 0;
    openedAt = 0;
    var cap = code === 4403 || code === 4404 ? 60000 : 15000;
    var base = Math.min(cap, 500 * Math.pow(2, attempt));
    attempt += 1;
    var wait = base / 2 + Math.random() * base / 2;
    reconnectTimer = setTimeout(connect, wait);
  }

  function reconnectNow() {
    if (ws || !reconnectTimer) return;
    clearTimeout(reconnectTimer);
    reconnectTimer = null;
    attempt = 0;
    connect();
  }

  window.addEventListener("online", reconnectNow);
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") reconnectNow();
  });

  // --- clock ------------------------------------------------------------------

  var clockDeadline = null;
  var clockTimer = null;

  function format(ms) {
    var s = Math.ceil(Math.max(0, ms) / 1000);
    var m = Math.floor(s / 60);
    s = s % 60;
    return m + ":" + (s < 10 ? "0" : "") + s;
  }

  function startClock() {
    var el = document.getElementById("board-clock");
    if (!el) return;
    var remaining = parseInt(el.dataset.remainingMs || "0", 10);
    var running = el.dataset.running === "1";
    clockDeadline = running ? performance.now() + remaining : null;
    render(el, remaining);
    if (clockTimer) clearInterval(clockTimer);
    clockTimer = running ? setInterval(tick, 200) : null;
  }

  function render(el, ms) {
    var text = el.querySelector("[data-clock-text]");
    if (text) text.textContent = format(ms);
    el.classList.toggle("is-low", ms <= 10000);
    el.classList.toggle("is-zero", ms <= 0);
  }

  function tick() {
    var el = document.getElementById("board-clock");
    if (!el || clockDeadline === null) return;
    render(el, clockDeadline - performance.now());
  }

  // --- technical pause (D7) ---------------------------------------------------
  // Counted down like the clock; hidden when its time is up (a frame hides
  // it at once when the host ends it early).

  var pauseDeadline = null;
  var pauseTimer = null;

  function startPause() {
    var el = document.getElementById("board-pause");
    if (pauseTimer) clearInterval(pauseTimer);
    pauseTimer = null;
    pauseDeadline = null;
    if (!el || el.hidden || el.dataset.running !== "1") return;
    pauseDeadline = performance.now() + parseInt(el.dataset.remainingMs || "0", 10);
    pauseTick();
    pauseTimer = setInterval(pauseTick, 200);
  }

  function pauseTick() {
    var el = document.getElementById("board-pause");
    if (!el || pauseDeadline === null) return;
    var left = pauseDeadline - performance.now();
    var text = el.querySelector("[data-pause-text]");
    if (text) text.textContent = format(left);
    if (left <= 0) {
      el.hidden = true;
      clearInterval(pauseTimer);
      pauseTimer = null;
      pauseDeadline = null;
    }
  }

  startClock();
  startPause();
  connect();
})();
