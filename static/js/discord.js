/* The Discord panel of the host's console (templates/discord_bridge/panel.html).
   It listens on the host-only websocket (/ws/games/<pk>/host/) and re-fetches the
   panel when a proposal arrives or the game changes; Enter confirms the
   pre-filled proposal of the current step; after a confirmation the console
   fragment is refreshed. Kept apart from console.js on purpose.
   The console's own shot / vote pickers are filled from the same proposal
   (marked «из Discord»), and the check's proposed seat is outlined. */
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
          // Keep what the host is typing: no swap while he edits the form, and
          // after it (he clicked elsewhere) his unsaved values and the open
          // «Связь с Discord» survive the refresh (issue 26-7).
          var editing = current.contains(document.activeElement) && /^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement.tagName);
          if (fresh && !editing) {
            var kept = unsavedFields(current);
            var opened = openDetails(current);
            current.replaceWith(fresh);
            restoreFields(fresh, kept);
            restoreDetails(fresh, opened);
            if (window.htmx) window.htmx.process(fresh);
            prefillConsole();
          }
        }
      })
      .catch(function () {})
      .then(function () {
        inFlight = false;
        if (again) refreshPanel();
      });
  }

  // A field is "unsaved" when the host changed it from what the server rendered.
  function fieldKey(el) {
    var form = el.form;
    return (form ? (form.getAttribute("hx-post") || form.id || "") : "") + "|" + el.name + "|" + (el.type === "radio" || el.type === "checkbox" ? el.value : "");
  }
  function unsavedFields(root) {
    var out = [];
    Array.prototype.forEach.call(root.querySelectorAll("input[name], textarea[name], select[name]"), function (el) {
      if (el.type === "hidden") return;
      if (el.type === "radio" || el.type === "checkbox") {
        if (el.checked !== el.defaultChecked) out.push({ key: fieldKey(el), checked: el.checked });
      } else if (el.tagName === "SELECT") {
        var changed = Array.prototype.some.call(el.options, function (o) { return o.selected !== o.defaultSelected; });
        if (changed) out.push({ key: fieldKey(el), value: el.value });
      } else if (el.value !== el.defaultValue) {
        out.push({ key: fieldKey(el), value: el.value });
      }
    });
    return out;
  }
  function restoreFields(root, kept) {
    if (!kept.length) return;
    var byKey = {};
    Array.prototype.forEach.call(root.querySelectorAll("input[name], textarea[name], select[name]"), function (el) { byKey[fieldKey(el)] = el; });
    kept.forEach(function (k) {
      var el = byKey[k.key];
      if (!el) return;
      if ("checked" in k) el.checked = k.checked; else el.value = k.value;
    });
  }
  function detailsKey(d) {
    var s = d.querySelector("summary");
    return (d.className || "") + "|" + (s ? s.textContent.trim() : "");
  }
  function openDetails(root) {
    return Array.prototype.filter.call(root.querySelectorAll("details"), function (d) { return d.open; }).map(detailsKey);
  }
  function restoreDetails(root, keys) {
    Array.prototype.forEach.call(root.querySelectorAll("details"), function (d) { if (keys.indexOf(detailsKey(d)) >= 0) d.open = true; });
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

  // --- the console's own pickers, pre-filled from the panel's «ok» proposal (issue 17) ---------
  // The panel's #discord-confirm form is built by the server from «ok» proposals
  // only (late / not his turn / not understood never reach it), so it is the
  // only source read here. A seat the host set by hand in this step is never
  // overwritten: his own change events mark it; ours are flagged while we fill.
  var filling = false;

  function consolePicker(kind) { return document.querySelector("#console [data-picker='" + kind + "']"); }
  function prefillLabel() { var p = panel(); return (p && p.dataset.prefillLabel) || "Discord"; }

  // The proposal of the step on screen, or null (stale panel, other step, nothing «ok»).
  function currentProposal() {
    var p = panel();
    var c = document.getElementById("console");
    var form = document.getElementById("discord-confirm");
    if (!p || !c || !form || p.dataset.seq !== c.dataset.seq || form.dataset.step !== consoleStep()) return null;
    return form;
  }

  function setBadge(box, on) {
    var h = box && box.querySelector("h3");
    if (!h) return;
    var badge = h.querySelector("[data-discord-badge]");
    if (on && !badge) {
      badge = document.createElement("span");
      badge.className = "discord-badge";
      badge.setAttribute("data-discord-badge", "");
      h.appendChild(badge);
    }
    if (badge) { if (on) badge.textContent = prefillLabel(); else badge.remove(); }
  }

  function choose(input, on) {
    if (input.checked === on) return;
    input.checked = on;
    filling = true;
    try { input.dispatchEvent(new Event("change", { bubbles: true })); } finally { filling = false; }
  }
  function markSeat(input, on) {
    var label = input.closest("label.seatbtn");
    if (label) label.classList.toggle("is-discord", on);
    if (on) input.setAttribute("data-discord-filled", ""); else input.removeAttribute("data-discord-filled");
  }

  function fillShots(form, proposal) {
    var any = false;
    Array.prototype.forEach.call(form.querySelectorAll("[data-row][data-black]"), function (row) {
      if (row.hasAttribute("data-discord-hand")) return;
      var src = proposal.querySelector("input[data-shot-by='" + row.dataset.black + "']");
      var target = src ? (src.getAttribute("value") || "") : "";
      // A black who sent nothing stays empty: «никого» is the host's choice (issue 12-1).
      var input = target ? row.querySelector("[data-pick-seat='" + target + "'] input[type=radio]") : null;
      Array.prototype.forEach.call(row.querySelectorAll("input[data-discord-filled]"), function (i) {
        if (i !== input) { markSeat(i, false); choose(i, false); }
      });
      if (!input) return;
      choose(input, true);
      markSeat(input, true);
      any = true;
    });
    return any;
  }

  function fillVotes(form, proposal) {
    var hand = (form.dataset.discordHand || "").split(" ");
    var wanted = {}; // radio name (vote-<voter>) → candidate
    Array.prototype.forEach.call(proposal.querySelectorAll("input[name^='for_']"), function (src) {
      var cand = src.name.slice(4);
      (src.getAttribute("value") || "").split(/[\s,]+/).forEach(function (v) { if (/^\d+$/.test(v)) wanted["vote-" + v] = cand; });
    });
    var any = false;
    Array.prototype.forEach.call(form.querySelectorAll("input[type=radio][name^='vote-']"), function (input) {
      if (hand.indexOf(input.name) >= 0) return;
      var on = wanted[input.name] === input.value;
      if (!on && !input.hasAttribute("data-discord-filled")) return;
      if (on) { choose(input, true); any = true; } else choose(input, false);
      markSeat(input, on);
    });
    return any;
  }

  function markCheck(box, proposal) {
    var src = proposal ? proposal.querySelector("input[name='target']") : null;
    var target = src ? (src.getAttribute("value") || "") : "";
    var any = false;
    Array.prototype.forEach.call(box.querySelectorAll("[data-pick-seat]"), function (b) {
      var on = !!target && b.getAttribute("data-pick-seat") === target;
      b.classList.toggle("is-discord", on);
      any = any || on;
    });
    return any;
  }

  function prefillConsole() {
    var proposal = currentProposal();
    var step = consoleStep();
    var shots = consolePicker("shots"), votes = consolePicker("votes"), check = consolePicker("check");
    if (shots) setBadge(shots, !!(proposal && step === "mafia_shot" && fillShots(shots, proposal)) || !!shots.querySelector("[data-discord-filled]"));
    if (votes) setBadge(votes, !!(proposal && step === "voting" && fillVotes(votes, proposal)) || !!votes.querySelector("[data-discord-filled]"));
    if (check) setBadge(check, markCheck(check, /_check$/.test(step) ? proposal : null));
  }

  // The host's own picks (a click, a digit key): that seat is his from now on in this step.
  document.addEventListener("change", function (e) {
    if (filling) return;
    var input = e.target;
    var form = input && input.closest && input.closest("#console [data-picker]");
    if (!form || input.type !== "radio") return;
    if (form.dataset.picker === "shots") {
      var row = input.closest("[data-row]");
      if (!row) return;
      row.setAttribute("data-discord-hand", "");
      Array.prototype.forEach.call(row.querySelectorAll("input[data-discord-filled]"), function (i) { markSeat(i, false); });
    } else if (form.dataset.picker === "votes") {
      form.dataset.discordHand = ((form.dataset.discordHand || "") + " " + input.name).trim();
      Array.prototype.forEach.call(form.querySelectorAll("input[name='" + input.name + "'][data-discord-filled]"), function (i) { markSeat(i, false); });
    } else {
      return;
    }
    if (!form.querySelector("[data-discord-filled]")) setBadge(form, false);
  }, true);

  // Capture phase: Enter confirms the Discord proposal before console.js sees it —
  // except where the console's own picker holds it (shots, votes): there the
  // console's Enter records the picker, with whatever the host changed.
  window.addEventListener("keydown", function (e) {
    if (e.key !== "Enter" || e.repeat || e.altKey || e.ctrlKey || e.metaKey) return;
    var t = e.target;
    var typing = t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable);
    var form = document.getElementById("discord-confirm");
    if (!form || document.querySelector("dialog[open]")) return;
    if (typing && !form.contains(t)) return;
    if (!typing && ((form.dataset.step === "mafia_shot" && consolePicker("shots")) || (form.dataset.step === "voting" && consolePicker("votes")))) return;
    if (t && t.closest && t.closest("button, a, summary") && !form.contains(t)) return;
    // Only the proposal of the step on screen; a stale panel never confirms.
    if (form.dataset.step !== consoleStep()) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    form.requestSubmit();
  }, true);

  document.addEventListener("discord-applied", refreshConsole);
  // After every swap (the console, the panel's first load, its forms' answers).
  document.addEventListener("htmx:afterSettle", prefillConsole);
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
