/* OBS scenes that follow the game, from the streamer's side.
 *
 * The overlay page is already an OBS browser source. This script talks to
 * obs-websocket 5 on the streamer's own machine (default ws://127.0.0.1:4455)
 * and switches the program scene when the overlay — after its delay — shows a
 * new phase: one OBS scene per scene key (setup, night, day, vote, pause,
 * finished; board.js announces each applied frame with `board:applied`).
 * The server never learns of OBS: the settings, password included, live in
 * the URL's fragment (#obs=…, never sent to a server nor written to its logs)
 * or in this browser's localStorage, set on the page opened with #obs-setup.
 *
 * Protocol (obs-websocket 5.x, JSON): the server says Hello (op 0) with an
 * optional {challenge, salt}; we Identify (op 1) with
 *   base64(sha256(base64(sha256(password + salt)) + challenge));
 * it answers Identified (op 2); then Request (op 6) SetCurrentProgramScene.
 */
(function () {
  "use strict";
  var STORE = "mafia-obs:v1";
  var SCENES = ["setup", "night", "day", "vote", "pause", "finished"];
  var status = document.getElementById("obs-status");

  function setStatus(state, text) {
    if (!status) return;
    status.dataset.state = state;
    status.textContent = text || state;
  }

  function readConfig() {
    var cfg = {};
    try { cfg = JSON.parse(localStorage.getItem(STORE) || "{}") || {}; } catch (e) { cfg = {}; }
    var hash = location.hash.replace(/^#/, "");
    if (hash && hash !== "obs-setup") {
      var params = new URLSearchParams(hash);
      if (params.has("obs")) {
        cfg = { url: params.get("obs") || "ws://127.0.0.1:4455", password: params.get("password") || "", scenes: {} };
        SCENES.forEach(function (k) { if (params.get(k)) cfg.scenes[k] = params.get(k); });
      }
    }
    return cfg.url ? cfg : null;
  }

  // --- SHA-256 (crypto.subtle exists only in secure contexts; OBS may load http) --
  function sha256(bytes) {
    var K = [0x428a2f98,0x71374491,0xb5c0fbcf,0xe9b5dba5,0x3956c25b,0x59f111f1,0x923f82a4,0xab1c5ed5,0xd807aa98,0x12835b01,0x243185be,0x550c7dc3,0x72be5d74,0x80deb1fe,0x9bdc06a7,0xc19bf174,0xe49b69c1,0xefbe4786,0x0fc19dc6,0x240ca1cc,0x2de92c6f,0x4a7484aa,0x5cb0a9dc,0x76f988da,0x983e5152,0xa831c66d,0xb00327c8,0xbf597fc7,0xc6e00bf3,0xd5a79147,0x06ca6351,0x14292967,0x27b70a85,0x2e1b2138,0x4d2c6dfc,0x53380d13,0x650a7354,0x766a0abb,0x81c2c92e,0x92722c85,0xa2bfe8a1,0xa81a664b,0xc24b8b70,0xc76c51a3,0xd192e819,0xd6990624,0xf40e3585,0x106aa070,0x19a4c116,0x1e376c08,0x2748774c,0x34b0bcb5,0x391c0cb3,0x4ed8aa4a,0x5b9cca4f,0x682e6ff3,0x748f82ee,0x78a5636f,0x84c87814,0x8cc70208,0x90befffa,0xa4506ceb,0xbef9a3f7,0xc67178f2];
    var H = [0x6a09e667,0xbb67ae85,0x3c6ef372,0xa54ff53a,0x510e527f,0x9b05688c,0x1f83d9ab,0x5be0cd19];
    var l = bytes.length, withPad = ((l + 9 + 63) >> 6) << 6, m = new Uint8Array(withPad);
    m.set(bytes); m[l] = 0x80;
    var bits = l * 8, dv = new DataView(m.buffer);
    dv.setUint32(withPad - 4, bits >>> 0); dv.setUint32(withPad - 8, Math.floor(bits / 4294967296));
    var w = new Uint32Array(64);
    for (var off = 0; off < withPad; off += 64) {
      for (var i = 0; i < 16; i++) w[i] = dv.getUint32(off + i * 4);
      for (i = 16; i < 64; i++) {
        var a = w[i - 15], b = w[i - 2];
        var s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
        var s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
        w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
      }
      var x = H.slice();
      for (i = 0; i < 64; i++) {
        var e = x[4], A = x[0];
        var S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
        var t1 = (x[7] + S1 + ((e & x[5]) ^ (~e & x[6])) + K[i] + w[i]) | 0;
        var S0 = ((A >>> 2) | (A << 30)) ^ ((A >>> 13) | (A << 19)) ^ ((A >>> 22) | (A << 10));
        var t2 = (S0 + ((A & x[1]) ^ (A & x[2]) ^ (x[1] & x[2]))) | 0;
        x = [(t1 + t2) | 0, A, x[1], x[2], (x[3] + t1) | 0, e, x[5], x[6]];
      }
      for (i = 0; i < 8; i++) H[i] = (H[i] + x[i]) | 0;
    }
    var out = new Uint8Array(32);
    for (i = 0; i < 8; i++) new DataView(out.buffer).setUint32(i * 4, H[i] >>> 0);
    return out;
  }
  function b64(bytes) { var s = ""; for (var i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]); return btoa(s); }
  function utf8(text) { return new TextEncoder().encode(text); }
  function authString(password, salt, challenge) {
    return b64(sha256(utf8(b64(sha256(utf8(password + salt))) + challenge)));
  }

  // --- the connection ---------------------------------------------------------
  var cfg = readConfig();
  var ws = null, identified = false, attempt = 0, wanted = "", sent = "", requestNo = 0;

  function switchScene() {
    if (!identified || !wanted || wanted === sent) return;
    var name = cfg.scenes && cfg.scenes[wanted];
    sent = wanted;
    if (!name) return; // no OBS scene chosen for this phase: stay where OBS is
    requestNo += 1;
    ws.send(JSON.stringify({ op: 6, d: { requestType: "SetCurrentProgramScene", requestId: "mafia-" + requestNo, requestData: { sceneName: name } } }));
  }

  function connect() {
    if (!cfg) return;
    setStatus("connecting");
    try { ws = new WebSocket(cfg.url, "obswebsocket.json"); } catch (e) { setStatus("error", String(e)); return retry(); }
    ws.onmessage = function (ev) {
      var msg; try { msg = JSON.parse(ev.data); } catch (e) { return; }
      if (msg.op === 0) {
        var hello = msg.d || {}, ident = { rpcVersion: 1, eventSubscriptions: 0 };
        if (hello.authentication) ident.authentication = authString(cfg.password || "", hello.authentication.salt, hello.authentication.challenge);
        ws.send(JSON.stringify({ op: 1, d: ident }));
      } else if (msg.op === 2) {
        identified = true; attempt = 0; sent = "";
        setStatus("identified");
        switchScene();
      } else if (msg.op === 7 && msg.d && msg.d.requestStatus && !msg.d.requestStatus.result) {
        setStatus("error", msg.d.requestStatus.comment || "request refused");
      }
    };
    ws.onclose = function (ev) {
      identified = false;
      setStatus(ev.code === 4009 ? "auth-failed" : "offline");
      if (ev.code !== 4009) retry(); // 4009: wrong password; retrying would only repeat it
    };
  }
  function retry() {
    attempt += 1;
    setTimeout(connect, Math.min(30000, 500 * Math.pow(2, Math.min(attempt, 6))));
  }

  document.addEventListener("board:applied", function (ev) {
    wanted = (ev.detail && ev.detail.scene) || wanted;
    switchScene();
  });
  var meta = document.getElementById("board-meta");
  wanted = meta ? meta.dataset.scene || "" : "";
  connect();

  // --- the setup panel (#obs-setup) ---------------------------------------------
  var panel = document.getElementById("obs-setup");
  if (!panel) return;
  function showPanel() {
    panel.hidden = location.hash !== "#obs-setup";
    if (panel.hidden) return;
    var stored = readConfig() || { url: "ws://127.0.0.1:4455", password: "", scenes: {} };
    panel.querySelector("[name=url]").value = stored.url;
    panel.querySelector("[name=password]").value = stored.password || "";
    SCENES.forEach(function (k) { var f = panel.querySelector("[name=scene-" + k + "]"); if (f) f.value = (stored.scenes || {})[k] || ""; });
  }
  panel.addEventListener("submit", function (ev) {
    ev.preventDefault();
    var c = { url: panel.querySelector("[name=url]").value.trim(), password: panel.querySelector("[name=password]").value, scenes: {} };
    var params = new URLSearchParams();
    params.set("obs", c.url);
    if (c.password) params.set("password", c.password);
    SCENES.forEach(function (k) { var v = panel.querySelector("[name=scene-" + k + "]").value.trim(); if (v) { c.scenes[k] = v; params.set(k, v); } });
    localStorage.setItem(STORE, JSON.stringify(c));
    var link = panel.querySelector("[name=link]");
    link.value = location.href.split("#")[0] + "#" + params.toString();
    link.hidden = false;
    cfg = c;
    if (ws) { try { ws.close(); } catch (e) { /* reconnects */ } } else { connect(); }
  });
  window.addEventListener("hashchange", showPanel);
  showPanel();
})();
