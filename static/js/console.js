/* Host console: clocks, seat pickers, keyboard, copy buttons.
 *
 * The server is the truth: every action is a POST whose answer replaces
 * #console. This file only keeps what lives between two clicks (voters being
 * ticked, a black's target, the roles being picked), counts the clocks down
 * from the remaining time the server rendered, and maps keys to clicks.
 */
(function () {
  "use strict";

  var BUSY_CLASS = "is-busy";
  window.consoleBusy = false;

  function $(sel, root) { return (root || document).querySelector(sel); }
  function $$(sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); }
  function consoleEl() { return document.getElementById("console"); }

  // --- requests: one at a time, and every POST carries the page's revision ---------------

  document.addEventListener("htmx:configRequest", function (e) {
    var c = consoleEl();
    if (e.detail.verb !== "post" || !c) return;
    // Forms outside #console (the penalty dialog) do not inherit its hx-vals.
    if (!e.detail.parameters.expected_seq) e.detail.parameters.expected_seq = c.dataset.seq;
  });
  var busySince = 0;
  function setBusy(on) {
    window.consoleBusy = on;
    busySince = on ? Date.now() : 0;
    document.body.classList.toggle(BUSY_CLASS, on);
  }
  document.addEventListener("htmx:beforeRequest", function (e) {
    var verb = (e.detail.requestConfig && e.detail.requestConfig.verb) || "";
    // Never stay stuck: a request that never reported back frees the page.
    if (window.consoleBusy && Date.now() - busySince > 15000) setBusy(false);
    if (verb === "get") {
      // The poller skips hidden tabs here (an hx-trigger filter would need eval, which the CSP forbids).
      if (window.consoleBusy || (document.hidden && e.detail.elt && e.detail.elt.id === "poller")) e.preventDefault();
      return;
    }
    if (window.consoleBusy) { e.preventDefault(); return; } // a double click is dropped here …
    setBusy(true); // … and refused by the revision check if it got through
  });
  // The page is free again as soon as the new console is in place (keys
  // pressed right after the swap must act on it), or when the request ends
  // without one.
  // htmx's own events come after the settle delay (or not at all when the
  // requesting element was swapped out), so watch the DOM: the moment a new
  // console, clock or share box is inserted, keys act on it.
  new MutationObserver(function (records) {
    for (var i = 0; i < records.length; i++) {
      var added = records[i].addedNodes;
      for (var j = 0; j < added.length; j++) {
        var id = added[j].id;
        if (id === "console" || id === "clock" || id === "share") { setBusy(false); return; }
      }
    }
  }).observe(document.documentElement, { childList: true, subtree: true });
  document.addEventListener("htmx:afterRequest", function (e) {
    var verb = (e.detail.requestConfig && e.detail.requestConfig.verb) || "";
    if (verb === "get") return;
    setBusy(false);
    if (!e.detail.successful && !e.detail.xhr.status) flash(gettextish("Нет связи с сервером: действие не записано."));
  });
  document.addEventListener("htmx:swapError", function () {
    setBusy(false);
    flash(gettextish("Страница не обновилась: перезагрузите её (F5)."));
  });
  document.addEventListener("htmx:responseError", function (e) {
    var s = e.detail.xhr.status;
    if (s === 403) flash(gettextish("Нет прав на эту игру (403)."));
    else if (s >= 500) flash(gettextish("Ошибка сервера: действие не записано."));
  });

  // Texts come translated from the page (#console-i18n); Russian is the fallback.
  var I18N = null;
  function gettextish(s) {
    if (I18N === null) {
      var el = document.getElementById("console-i18n");
      try { I18N = el ? JSON.parse(el.textContent) : {}; } catch (err) { I18N = {}; }
    }
    return I18N[s] || s;
  }
  function flash(text) {
    var zone = $(".flash-zone");
    if (!zone) return;
    zone.innerHTML = "";
    var d = document.createElement("div");
    d.className = "flash flash-error";
    d.setAttribute("role", "alert");
    d.textContent = text;
    zone.appendChild(d);
  }

  // --- clocks ----------------------------------------------------------------------------------

  var sound = localStorage.getItem("console.sound") === "1";
  var audio = null;
  function beep(freq, ms, when) {
    if (!sound) return;
    try {
      audio = audio || new (window.AudioContext || window.webkitAudioContext)();
      var o = audio.createOscillator(), g = audio.createGain();
      o.frequency.value = freq; o.type = "sine";
      g.gain.value = 0.15;
      o.connect(g); g.connect(audio.destination);
      var t = audio.currentTime + (when || 0);
      o.start(t); o.stop(t + ms / 1000);
    } catch (err) { /* no audio: the visual cue stays */ }
  }
  function syncSoundButtons() {
    $$("[data-sound-toggle]").forEach(function (b) {
      b.classList.toggle("is-on", sound);
      b.textContent = sound ? gettextish("Звук: вкл") : gettextish("Звук: выкл");
      b.setAttribute("aria-pressed", sound ? "true" : "false");
    });
  }

  function fmt(ms) {
    var s = Math.ceil(ms / 1000);
    var m = Math.floor(s / 60);
    s = s % 60;
    return m + ":" + (s < 10 ? "0" : "") + s;
  }

  function tick() {
    var now = performance.now();
    $$("[data-remaining-ms]").forEach(function (el) {
      // The server rendered the remaining time; count down from the moment
      // this element arrived (no clock skew between server and browser).
      if (el._t0 === undefined) { el._t0 = now; el._rem0 = parseInt(el.dataset.remainingMs, 10) || 0; el._prev = el._rem0; }
      var running = el.dataset.running === "1";
      var rem = running ? Math.max(0, el._rem0 - (now - el._t0)) : el._rem0;
      var text = fmt(rem);
      if (el.textContent !== text) el.textContent = text;
      if (!el.classList.contains("clock")) return;
      var box = el.closest(".clock-box");
      var warn = rem > 0 && rem <= 10000 && parseInt(el.dataset.durationMs, 10) > 10000;
      el.classList.toggle("is-warning", warn);
      el.classList.toggle("is-zero", rem <= 0 && parseInt(el.dataset.durationMs, 10) > 0);
      if (box) box.classList.toggle("cue-10", warn);
      if (running) {
        if (el._prev > 10000 && rem <= 10000 && rem > 0 && parseInt(el.dataset.durationMs, 10) > 10000) { beep(880, 180); }
        if (el._prev > 0 && rem <= 0) { beep(660, 250); beep(660, 250, 0.35); }
      }
      el._prev = rem;
    });
  }
  setInterval(tick, 100);

  // --- seat pickers -------------------------------------------------------------------------------

  function picker() { return $("#console [data-picker]"); }

  function activeRow(form) { return $("[data-row].is-active", form) || $("[data-row]", form); }
  function setActiveRow(form, row) {
    if (!row) return;
    $$("[data-row]", form).forEach(function (r) { r.classList.toggle("is-active", r === row); });
  }
  function moveRow(form, delta) {
    var rows = $$("[data-row]", form), i = rows.indexOf(activeRow(form));
    var j = Math.max(0, Math.min(rows.length - 1, i + delta));
    setActiveRow(form, rows[j]);
  }

  function toggleRadio(input) {
    input.checked = !input.checked;
    input.dispatchEvent(new Event("change", { bubbles: true }));
  }

  function pick(seat) {
    var p = picker();
    if (!p) {
      // No panel takes seats: a seat's main action (nominate) if it has one.
      var primary = $("#tile-" + seat + " [data-primary]");
      if (primary && !primary.disabled) primary.click();
      return;
    }
    var kind = p.dataset.picker;
    if (kind === "roles") return pickRole(p, seat);
    if (kind === "check") {
      var b = $("[data-pick-seat='" + seat + "']", p);
      if (b && !b.disabled) b.click();
      return;
    }
    if (kind === "votes" || kind === "shots") {
      var row = activeRow(p);
      var input = row && $("[data-pick-seat='" + seat + "'] input", row);
      if (!input) return;
      toggleRadio(input);
      if (kind === "shots" && input.checked) moveRow(p, 1);
      return;
    }
    if (kind === "lift" || kind === "best") {
      var cb = $("[data-pick-seat='" + seat + "'] input", p);
      if (cb) { cb.checked = !cb.checked; cb.dispatchEvent(new Event("change", { bubbles: true })); }
    }
  }

  // Clicking a ticked radio unticks it (a voter clicked by mistake).
  document.addEventListener("click", function (e) {
    var label = e.target.closest && e.target.closest("label.seatbtn");
    if (!label) return;
    var input = $("input[type=radio]", label);
    if (!input || input.value === "") return;
    e.preventDefault();
    var row = label.closest("[data-row]");
    var form = label.closest("form");
    if (row && form) setActiveRow(form, row);
    toggleRadio(input);
    if (form && form.dataset.picker === "shots" && input.checked) moveRow(form, 1);
  });

  function refreshPanels() {
    var p = picker();
    if (!p) return;
    var kind = p.dataset.picker;
    if (kind === "votes") {
      var voters = {};
      $$("input[type=radio]", p).forEach(function (i) { voters[i.name] = voters[i.name] || false; if (i.checked) voters[i.name] = true; });
      var non = Object.keys(voters).filter(function (k) { return !voters[k]; }).map(function (k) { return k.slice(5); });
      var rows = $$("[data-row]", p);
      rows.forEach(function (row) {
        var n = $$("input:checked", row).length;
        var extra = row.hasAttribute("data-last") ? non.length : 0;
        var out = $("[data-total]", row);
        out.innerHTML = extra ? (n + extra) + '<small class="vote-split">' + n + " + " + extra + "</small>" : String(n);
        // A voter ticked here is greyed out in the other rows.
        $$("label.seatbtn", row).forEach(function (l) {
          var inp = $("input", l);
          var taken = !inp.checked && voters[inp.name];
          l.classList.toggle("is-taken", taken);
          l.classList.toggle("is-auto", !!extra && non.indexOf(inp.name.slice(5)) >= 0);
        });
      });
      var nv = $("[data-nonvoters]", p);
      if (nv) nv.textContent = non.length ? non.join(", ") : "—";
    } else if (kind === "lift") {
      var yes = $$("input:checked", p).length;
      var need = parseInt(p.dataset.needed, 10) || 0;
      $("[data-yes-count]", p).textContent = yes;
      var v = $("[data-lift-verdict]", p);
      v.textContent = yes >= need ? gettextish("→ покидают все") : gettextish("→ никто не покидает");
      v.classList.toggle("is-yes", yes >= need);
    } else if (kind === "shots") {
      var targets = $$("[data-row]", p).map(function (row) { var i = $("input:checked", row); return i ? i.value : ""; });
      var same = targets.length && targets.every(function (t) { return t !== "" && t === targets[0]; });
      var verdict = $("[data-shot-verdict]", p);
      verdict.textContent = same ? gettextish("→ выстрел в №") + targets[0] : gettextish("→ промах");
      verdict.classList.toggle("is-kill", !!same);
    } else if (kind === "best") {
      var max = parseInt(p.dataset.max, 10) || 3;
      var boxes = $$("input[type=checkbox]", p);
      var chosen = boxes.filter(function (b) { return b.checked; }).map(function (b) { return b.value; });
      boxes.forEach(function (b) { b.disabled = !b.checked && chosen.length >= max; });
      $("[data-best-preview]", p).textContent = gettextish("Принято: ") + (chosen.length ? chosen.join(", ") : "—");
    } else if (kind === "roles") {
      refreshRoleBadges(p);
    }
  }
  document.addEventListener("change", function (e) { if (e.target.closest && e.target.closest("[data-picker]")) refreshPanels(); });

  // Roles: pick a slot, then a seat; the next empty slot becomes active.
  function pickRole(form, seat) {
    var slot = $(".slot.is-active", form) || $(".slot", form);
    var name = slot.dataset.slot;
    // A seat holds one role: clear it from the other slots.
    $$("[data-slot-input]", form).forEach(function (i) { if (i.value === String(seat) && i.dataset.slotInput !== name) setSlot(form, i.dataset.slotInput, ""); });
    setSlot(form, name, String(seat));
    var slots = $$(".slot", form);
    var next = slots.filter(function (s) { return !$("[data-slot-input='" + s.dataset.slot + "']", form).value; })[0];
    activateSlot(form, next || slot);
    refreshRoleBadges(form);
  }
  function setSlot(form, name, value) {
    $("[data-slot-input='" + name + "']", form).value = value;
    $(".slot[data-slot='" + name + "'] [data-slot-value]", form).textContent = value || "—";
  }
  function activateSlot(form, slot) { $$(".slot", form).forEach(function (s) { s.classList.toggle("is-active", s === slot); }); }
  function refreshRoleBadges(form) {
    var bySeat = {};
    $$(".slot", form).forEach(function (s) { var v = $("[data-slot-input='" + s.dataset.slot + "']", form).value; if (v) bySeat[v] = s; });
    $$("#console .tile").forEach(function (t) {
      var slot = bySeat[t.dataset.seat];
      var role = slot ? slot.dataset.role : "";
      var b = $("[data-role-badge]", t);
      // The slot's own badge holds the letter in the page's language (Ш / S …).
      b.textContent = slot ? $(".role-badge", slot).textContent : "";
      b.className = "role-badge" + (role ? " role-" + role : "");
    });
    var save = $("#roles-save", form);
    if (save) save.disabled = Object.keys(bySeat).length !== 4;
  }
  document.addEventListener("click", function (e) {
    var slot = e.target.closest && e.target.closest(".slot");
    if (slot) { activateSlot(slot.closest("form"), slot); return; }
    if (e.target.closest && e.target.closest("[data-roles-clear]")) {
      var form = e.target.closest("form");
      $$("[data-slot-input]", form).forEach(function (i) { setSlot(form, i.dataset.slotInput, ""); });
      activateSlot(form, $(".slot", form));
      refreshRoleBadges(form);
    }
    var act = e.target.closest && e.target.closest("[data-activate]");
    if (act) setActiveRow(act.closest("form"), act.closest("[data-row]"));
  });

  // Tile clicks: the panel's seat pick, or the tile's own main action.
  document.addEventListener("click", function (e) {
    var tile = e.target.closest && e.target.closest("#console .tile");
    if (!tile || e.target.closest("button, a, input, label, select")) return;
    pick(parseInt(tile.dataset.seat, 10));
  });

  // --- dialogs ------------------------------------------------------------------------------------

  function openPenalty(seat) {
    var d = document.getElementById("penalty-dialog");
    var tile = document.getElementById("tile-" + seat);
    if (!d || !tile) return;
    var f = d.querySelector("form");
    f.reset();
    f.seat.value = seat;
    f.team.value = tile.dataset.team || "";
    // Only the kinds the engine allows for this seat now (legal_actions).
    var allowed = (tile.dataset.penalties || "").split(" ");
    var first = null;
    $$("input[name=do]", f).forEach(function (r) {
      r.disabled = allowed.indexOf(r.value) < 0;
      r.closest("label").classList.toggle("is-disabled", r.disabled);
      if (!r.disabled && !first) first = r;
    });
    if (first) first.checked = true;
    $("[data-seat-label]", d).textContent = seat;
    $("[data-nick-label]", d).textContent = tile.dataset.nick || "";
    d.showModal();
  }
  document.addEventListener("click", function (e) {
    var b = e.target.closest && e.target.closest("[data-penalty-seat]");
    if (b) { openPenalty(b.dataset.penaltySeat); return; }
    if (e.target.closest && e.target.closest("[data-close-dialog]")) { e.target.closest("dialog").close(); return; }
    if (e.target.closest && e.target.closest("[data-open-help]")) { document.getElementById("help-dialog").showModal(); return; }
    if (e.target.closest && e.target.closest("[data-sound-toggle]")) {
      sound = !sound;
      localStorage.setItem("console.sound", sound ? "1" : "0");
      syncSoundButtons();
      if (sound) beep(880, 120);
    }
  });
  // A reason picked from the catalogue sets its default penalty (F16); the host may change it.
  document.addEventListener("change", function (e) {
    if (e.target.name === "reason" && e.target.closest("#penalty-form")) {
      var opt = e.target.selectedOptions[0];
      var kind = opt && opt.dataset.penalty;
      if (kind) {
        var radio = $("#penalty-form input[name=do][value='" + kind + "']");
        if (radio && !radio.disabled) radio.checked = true;
      }
    }
  });
  document.addEventListener("htmx:afterRequest", function (e) {
    var d = e.detail.elt && e.detail.elt.closest && e.detail.elt.closest("dialog");
    if (d && d.open) d.close();
  });

  // --- copy buttons -------------------------------------------------------------------------------

  function copyText(text, btn) {
    function done() {
      if (!btn) return;
      var old = btn.textContent;
      btn.textContent = "✓";
      btn.classList.add("is-copied");
      setTimeout(function () { btn.textContent = old; btn.classList.remove("is-copied"); }, 1200);
    }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () { legacyCopy(text); done(); });
    } else { legacyCopy(text); done(); }
  }
  function legacyCopy(text) {
    var ta = document.createElement("textarea");
    ta.value = text; ta.setAttribute("readonly", ""); ta.style.position = "fixed"; ta.style.opacity = "0";
    document.body.appendChild(ta); ta.select();
    try { document.execCommand("copy"); } catch (err) { /* the text stays selectable */ }
    document.body.removeChild(ta);
  }
  document.addEventListener("click", function (e) {
    var b = e.target.closest && e.target.closest("[data-copy]");
    if (b) copyText(b.dataset.copy, b);
  });

  // Local countdowns: V1 (5 seconds to finish gestures, then the line) and
  // V2 (about 4 seconds per candidate, started when his row is activated).
  function countdown(b, seconds, out, doneText) {
    var end = Date.now() + seconds * 1000;
    clearInterval(b._t);
    b._t = setInterval(function () {
      if (!document.body.contains(out)) { clearInterval(b._t); return; }
      var left = Math.max(0, Math.ceil((end - Date.now()) / 1000));
      out.textContent = left ? left + "…" : doneText;
      if (!left) { clearInterval(b._t); beep(660, 200); }
    }, 100);
  }
  document.addEventListener("click", function (e) {
    var b = e.target.closest && e.target.closest("[data-countdown]");
    if (b) { countdown(b, parseInt(b.dataset.countdown, 10), b.parentNode.querySelector("[data-countdown-out]"), "«--------------»"); return; }
    var r = e.target.closest && e.target.closest("[data-row-countdown]");
    if (r) countdown(r, parseInt(r.dataset.rowCountdown, 10), r.querySelector("[data-countdown-out]"), "✓");
  });

  // --- keyboard -------------------------------------------------------------------------------------

  var foulArmed = 0;
  var hint = null;
  function showHint(text) {
    hint = hint || document.getElementById("key-hint");
    if (!hint) return;
    hint.textContent = text;
    hint.hidden = !text;
  }

  document.addEventListener("keydown", function (e) {
    var t = e.target;
    var typing = t && (t.tagName === "INPUT" && !/^(radio|checkbox|button|submit)$/.test(t.type) || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable);
    if (e.key === "Escape") { showHint(""); foulArmed = 0; return; }
    if (typing || document.querySelector("dialog[open]")) return;
    if (e.altKey || e.metaKey) return;
    if (e.ctrlKey) {
      if ((e.key === "z" || e.key === "Z" || e.key === "я" || e.key === "Я") && !e.repeat) {
        var u = document.getElementById("undo-btn");
        if (u) { e.preventDefault(); u.click(); }
      }
      return;
    }
    if (e.repeat) { if (e.key === " ") e.preventDefault(); return; }
    // A focused button (clicked before) must not also take Space/Enter.
    var focusedControl = t && t !== document.body && t.closest && t.closest("button, a, summary, label");
    if (focusedControl && e.key === "Enter") return; // its own click
    if (focusedControl && e.key === " ") { e.preventDefault(); t.blur(); }
    if (window.consoleBusy) { if (e.key === " ") e.preventDefault(); return; }
    var key = e.key;
    if (key === " " || key === "Spacebar") {
      e.preventDefault();
      var next = document.getElementById("next-btn");
      if (next && !next.disabled) next.click();
      else toggleClock();
      return;
    }
    if (key === "p" || key === "P" || key === "з" || key === "З") { e.preventDefault(); toggleClock(); return; }
    if (key === "?") { e.preventDefault(); document.getElementById("help-dialog").showModal(); return; }
    if (key === "f" || key === "F" || key === "а" || key === "А") {
      foulArmed = Date.now();
      showHint(gettextish("Фол: нажмите номер места"));
      return;
    }
    if (/^[0-9]$/.test(key)) {
      e.preventDefault();
      var seat = key === "0" ? 10 : parseInt(key, 10);
      if (foulArmed && Date.now() - foulArmed < 4000) {
        foulArmed = 0;
        showHint("");
        var fb = $("#tile-" + seat + " .btn-foul");
        if (fb) fb.click();
        return;
      }
      pick(seat);
      flashTile(seat);
      return;
    }
    var p = picker();
    if (p && (key === "ArrowDown" || key === "ArrowUp") && $("[data-row]", p)) { e.preventDefault(); moveRow(p, key === "ArrowDown" ? 1 : -1); return; }
    if (p && key === "Enter") {
      var submit = $("[data-submit]", p);
      if (submit && !submit.disabled) { e.preventDefault(); submit.click(); }
    }
  });

  function toggleClock() {
    var b = document.getElementById("clock-toggle");
    if (b) b.click();
  }
  function flashTile(seat) {
    var tile = document.getElementById("tile-" + seat);
    if (!tile) return;
    tile.classList.remove("key-flash");
    void tile.offsetWidth;
    tile.classList.add("key-flash");
  }

  // After every swap: re-apply the client-side state of the new panels.
  document.addEventListener("htmx:afterSettle", function () { refreshPanels(); syncSoundButtons(); });
  document.addEventListener("DOMContentLoaded", function () { refreshPanels(); syncSoundButtons(); });
})();

/* Open <details> (winks, pauses, the game menu) stay open across swaps. */
(function () {
  "use strict";
  var KEY = "console.open";
  function load() { try { return JSON.parse(sessionStorage.getItem(KEY) || "{}"); } catch (e) { return {}; } }
  document.addEventListener("toggle", function (e) {
    var d = e.target;
    if (!d.matches || !d.matches("#console details[data-keep]")) return;
    var open = load();
    open[d.dataset.keep] = d.open;
    sessionStorage.setItem(KEY, JSON.stringify(open));
  }, true);
  function restore() {
    var open = load();
    document.querySelectorAll("#console details[data-keep]").forEach(function (d) { if (open[d.dataset.keep]) d.open = true; });
  }
  document.addEventListener("htmx:load", restore);
  document.addEventListener("DOMContentLoaded", restore);
})();
