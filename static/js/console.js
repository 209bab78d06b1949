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
    if (window.consoleBusy) { // a double click is dropped here, and says so …
      e.preventDefault();
      showHint(gettextish("Предыдущее действие ещё записывается: нажмите снова, когда появится ответ."), true);
      return;
    }
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
        if (id === "console" || id === "clock" || id === "share") {
          setBusy(false);
          if (id === "console") onConsoleSwapped(added[j]);
          return;
        }
      }
    }
  }).observe(document.documentElement, { childList: true, subtree: true });
  // --- the outcome of an action whose answer never came (issue 11) ---------------------------
  // A network error, a timeout or a 5xx does not say whether the action was
  // recorded: the server may have stored it and failed afterwards. The console
  // never guesses: it re-reads the game's revision (Game.seq, the number the
  // page sends as expected_seq) and tells the host which it was, then redraws.
  var sentSeq = null;
  document.addEventListener("htmx:beforeRequest", function (e) {
    var cfg = e.detail.requestConfig || {};
    if (cfg.verb === "post" && isRevisionPath(cfg.path)) {
      var c = consoleEl();
      sentSeq = c ? parseInt(c.dataset.seq, 10) : null;
    }
  });
  function isRevisionPath(path) { return /\/(act|undo)\/?$/.test(String(path || "").split("?")[0]); }
  function checkOutcome(sent, attempt) {
    var c = consoleEl();
    var url = c && c.querySelector("#poller") && c.querySelector("#poller").getAttribute("hx-get");
    if (!url || sent === null) return;
    url = url.split("?")[0];
    setBusy(true);
    fetch(url, { credentials: "same-origin", cache: "no-store", headers: { "HX-Request": "true" } })
      .then(function (r) { if (!r.ok) throw new Error(String(r.status)); return r.text(); })
      .then(function (html) {
        var box = document.createElement("div");
        box.innerHTML = html;
        var fresh = box.querySelector("#console");
        if (!fresh) throw new Error("no console");
        var now = parseInt(fresh.dataset.seq, 10);
        var text = now > sent
          ? gettextish("Действие записано") + " (#" + now + ")."
          : gettextish("Действие не записано: повторите его.");
        var old = consoleEl();
        old.replaceWith(fresh);
        if (window.htmx) window.htmx.process(fresh);
        setBusy(false);
        outcomeFlash(text, now > sent);
      })
      .catch(function () {
        if (attempt < 4) { setTimeout(function () { checkOutcome(sent, attempt + 1); }, 800 * (attempt + 1)); return; }
        setBusy(false);
        flash(gettextish("Нет связи: не удалось узнать, записано ли действие. Обновите страницу (F5), прежде чем повторять."));
      });
  }
  function outcomeFlash(text, recorded) {
    var zone = $(".flash-zone");
    if (!zone) return;
    zone.innerHTML = "";
    var d = document.createElement("div");
    d.className = "flash " + (recorded ? "flash-ok" : "flash-error");
    d.setAttribute("data-outcome", recorded ? "recorded" : "not-recorded");
    if (!recorded) d.setAttribute("role", "alert");
    d.textContent = text;
    zone.appendChild(d);
    announce(text);
  }
  document.addEventListener("htmx:afterRequest", function (e) {
    var cfg = e.detail.requestConfig || {};
    var verb = cfg.verb || "";
    if (verb === "get") return;
    setBusy(false);
    var status = e.detail.xhr ? e.detail.xhr.status : 0;
    if (!e.detail.successful && (!status || status >= 500) && isRevisionPath(cfg.path)) {
      flash(status ? gettextish("Ошибка сервера: проверяю, записано ли действие…") : gettextish("Нет связи с сервером: проверяю, записано ли действие…"));
      checkOutcome(sentSeq, 0);
      return;
    }
    if (!e.detail.successful && !status) flash(gettextish("Нет связи с сервером: действие не записано."));
  });
  document.addEventListener("htmx:swapError", function () {
    setBusy(false);
    flash(gettextish("Страница не обновилась: перезагрузите её (F5)."));
  });
  document.addEventListener("htmx:responseError", function (e) {
    var s = e.detail.xhr.status;
    if (s === 403) flash(gettextish("Нет прав на эту игру (403)."));
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
  // The polite live region (#console-live) is outside #console, which every
  // action replaces: a region inserted with its text is not announced (issue 13-5).
  function announce(text) {
    var live = document.getElementById("console-live");
    if (!live) return;
    live.textContent = "";
    setTimeout(function () { live.textContent = text; }, 30);
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
      // A technical pause (D7) whose time is up leaves the console at zero.
      if (running && rem <= 0 && el.dataset.hideAtZero) {
        var gone = el.closest(el.dataset.hideAtZero);
        if (gone) gone.hidden = true;
      }
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

  // Every seat key either acts or says why not, naming the rule (issue 12-8).
  // Where the server has an action for it, the server refuses (the engine's
  // own words and rule id); the client-only pickers refuse here.
  function pick(seat) {
    var p = picker();
    var c = consoleEl();
    if (!p) {
      // The speaker may have nothing left to name (D4) and still press a digit: say why.
      var by = c && (c.dataset.nominateBy || c.dataset.speechBy);
      if (!by) { refuse(gettextish("Правило D3: выставлять можно только во время своей речи.")); return; }
      // 13-4: the same digit again in one speech says nothing new (D4).
      var named = (c.dataset.named || "").split(" ");
      if (named.indexOf(String(seat)) >= 0) {
        refuse(fmtText(gettextish("Правило D4: №{by} уже назвал №{seat} в этой речи."), { by: by, seat: seat }));
        return;
      }
      var primary = $("#tile-" + seat + " [data-primary]");
      if (primary && !primary.disabled) primary.click();
      else serverAct({ "do": "nominate", by: by, target: seat }); // D3/D4: the engine says why not
      return;
    }
    var kind = p.dataset.picker;
    if (kind === "roles") return pickRole(p, seat);
    if (kind === "check") {
      var b = $("[data-pick-seat='" + seat + "']", p);
      if (b && !b.disabled) pickCheck(p, b, seat);
      else serverAct({ "do": c.className.indexOf("step-don_check") >= 0 ? "don_check" : "sheriff_check", target: seat }); // N4: the engine says why not
      return;
    }
    if (kind === "votes" || kind === "shots") {
      var row = activeRow(p);
      var input = row && $("[data-pick-seat='" + seat + "'] input", row);
      if (!input) {
        refuse(kind === "votes"
          ? fmtText(gettextish("Правило V3: №{seat} не за столом и не голосует."), { seat: seat })
          : fmtText(gettextish("Правило N2: №{seat} не за столом, в него не стреляют."), { seat: seat }));
        return;
      }
      toggleRadio(input);
      if (kind === "shots" && input.checked) moveRow(p, 1);
      return;
    }
    if (kind === "lift" || kind === "best") {
      var cb = $("[data-pick-seat='" + seat + "'] input", p);
      if (!cb) {
        refuse(kind === "lift"
          ? fmtText(gettextish("Правило V10: №{seat} не за столом и не голосует."), { seat: seat })
          : fmtText(gettextish("Правило N6: №{seat} не за столом."), { seat: seat }));
        return;
      }
      if (cb.disabled) {
        // The mouse cannot tick a greyed-out seat; neither can a key (issue 12-4).
        refuse(gettextish("Правило N6: в лучшем ходе не больше трёх номеров."));
        return;
      }
      cb.checked = !cb.checked;
      cb.dispatchEvent(new Event("change", { bubbles: true }));
    }
  }
  // Issue 26-9: a check is a digit, then Enter (the Don's and the Sheriff's
  // alike): a slipped digit is corrected with another digit, not an undo. The
  // picked seat's button becomes the step's primary control, focused, so Enter
  // (the console's, not a Discord proposal's) records exactly it.
  function pickCheck(p, b, seat) {
    $$("[data-pick-seat]", p).forEach(function (x) {
      var on = x === b;
      x.classList.toggle("is-picked", on);
      x.setAttribute("aria-pressed", on ? "true" : "false");
      if (on) x.setAttribute("data-submit", ""); else x.removeAttribute("data-submit");
    });
    ownFocus(b, false);
    showHint(fmtText(gettextish("Проверка №{seat}: Enter — записать, другая цифра — другой номер."), { seat: seat }));
  }
  function fmtText(text, values) {
    return text.replace(/\{(\w+)\}/g, function (m, k) { return values[k] !== undefined ? values[k] : m; });
  }
  function refuse(text) {
    showHint(text, true);
    announce(text);
  }
  function serverAct(values) {
    var c = consoleEl();
    if (!c || !window.htmx) return;
    values.expected_seq = c.dataset.seq;
    window.htmx.ajax("POST", c.dataset.actUrl, { target: "#console", swap: "outerHTML", values: values });
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
      // Each black's choice is entered (a seat or «никого»), never assumed (issue 12-1).
      var ssub = $("[data-needs-all-rows]", p);
      var missing = $$("[data-row]", p).filter(function (row) { return !$("input:checked", row); });
      if (ssub) ssub.disabled = missing.length > 0;
      if (missing.length) verdict.textContent = gettextish("Отметьте каждого чёрного: номер или «никого».");
    } else if (kind === "best") {
      var max = parseInt(p.dataset.max, 10) || 3;
      var boxes = $$("input[type=checkbox]", p);
      var chosen = boxes.filter(function (b) { return b.checked; }).map(function (b) { return b.value; });
      boxes.forEach(function (b) { b.disabled = !b.checked && chosen.length >= max; });
      $("[data-best-preview]", p).textContent = gettextish("Принято: ") + (chosen.length ? chosen.join(", ") : "—");
      // «Принято» needs the seats the player named (issue 12-1).
      var bsub = $("[data-needs-one]", p);
      if (bsub) bsub.disabled = chosen.length === 0;
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

  // opts (issue 26-5, the keyboard's way in): kind — the kind to select;
  // keyboard — the focus goes to the reason's type-ahead; confirm — a removal,
  // recorded on a second Enter; note — what the host is told above the list.
  function openPenalty(seat, opts) {
    opts = opts || {};
    var d = document.getElementById("penalty-dialog");
    var tile = document.getElementById("tile-" + seat);
    if (!d || !tile) return;
    var f = d.querySelector("form");
    f.reset();
    f.seat.value = seat;
    f.team.value = tile.dataset.team || "";
    // "kind:code" pairs the server withholds for this seat (F18: a player
    // with 3 fouls gets the grey card, never a foul, for those reasons).
    f.dataset.withheld = tile.dataset.penaltyWithheld || "";
    // Only the kinds the engine allows for this seat now (legal_actions).
    var allowed = (tile.dataset.penalties || "").split(" ");
    var first = null;
    $$("input[name=do]", f).forEach(function (r) {
      r.disabled = allowed.indexOf(r.value) < 0;
      r.closest("label").classList.toggle("is-disabled", r.disabled);
      if (!r.disabled && !first) first = r;
    });
    var wanted = opts.kind && $("input[name=do][value='" + opts.kind + "']", f);
    if (wanted && !wanted.disabled) wanted.checked = true;
    else if (first) first.checked = true;
    filterReasons(f);
    d.dataset.openedAt = String(performance.now());
    d.dataset.confirm = opts.confirm ? "1" : "";
    d.dataset.confirmArmed = "";
    d.dataset.note = opts.note || "";
    d.dataset.seat = String(seat);
    // Kinds the engine does not allow now are greyed out: say so, not silently (26-5).
    var off = $$("input[name=do]", f).filter(function (r) { return r.disabled; }).map(function (r) { return r.closest("label").textContent.trim(); });
    d.dataset.offKinds = off.length ? fmtText(gettextish("Сейчас не разрешено правилами для №{seat}: {kinds}."), { seat: seat, kinds: off.join(", ") }) : "";
    buildReasonList(f);
    $("[data-seat-label]", d).textContent = seat;
    $("[data-nick-label]", d).textContent = tile.dataset.nick || "";
    // No focus target is remembered for after the dialog (issue 26-1): it
    // closes onto the step's primary control, whether confirmed or cancelled.
    focusIntent = null;
    d.showModal();
    if (opts.keyboard) { var fi = $("[data-reason-filter]", f); if (fi) fi.focus(); }
  }
  // A deliberate choice inside a form (best move «Не принят» / «Пас») asks first.
  document.addEventListener("click", function (e) {
    var b = e.target.closest && e.target.closest("button[data-confirm]");
    if (b && !window.confirm(b.dataset.confirm)) { e.preventDefault(); e.stopImmediatePropagation(); }
  }, true);
  document.addEventListener("click", function (e) {
    var b = e.target.closest && e.target.closest("[data-penalty-seat]");
    if (b) { openPenalty(b.dataset.penaltySeat, {}); return; }
    if (e.target.closest && e.target.closest("[data-close-dialog]")) { e.target.closest("dialog").close(); return; }
    if (e.target.closest && e.target.closest("[data-open-help]")) { document.getElementById("help-dialog").showModal(); return; }
    if (e.target.closest && e.target.closest("[data-sound-toggle]")) {
      sound = !sound;
      localStorage.setItem("console.sound", sound ? "1" : "0");
      syncSoundButtons();
      if (sound) beep(880, 120);
    }
  });
  // Issue 12-2: the kind the host chose never changes; the reasons offered are
  // the catalogue's reasons of that kind (F16), so a pick cannot contradict it.
  function filterReasons(form) {
    var kind = ($("input[name=do]:checked", form) || {}).value || "";
    var select = $("select[name=reason]", form);
    if (!select) return;
    var withheld = (form.dataset.withheld || "").split(" ");
    $$("option", select).forEach(function (o) {
      if (!o.value) return;
      var fits = o.dataset.penalty === kind && withheld.indexOf(kind + ":" + o.value) < 0;
      o.hidden = !fits;
      o.disabled = !fits;
      if (!fits && o.selected) select.value = "";
    });
    $$("optgroup", select).forEach(function (g) {
      var any = $$("option", g).some(function (o) { return !o.disabled; });
      g.hidden = !any;
      g.disabled = !any;
    });
  }
  document.addEventListener("change", function (e) {
    if (e.target.name === "do" && e.target.closest("#penalty-form")) { filterReasons(e.target.form); buildReasonList(e.target.form); }
  });

  // --- the reason's type-ahead (issue 26-5) ------------------------------------------------------
  // The list is the select's options the server rendered for the chosen kind
  // (filterReasons keeps only those), so a rule that changes what the dialog
  // offers changes this list without a line of JS.
  var REMOVAL_KINDS = ["disqualify", "remove", "ppk"];
  var reasonPick = -1;
  function reasonCandidates(form) {
    var select = $("select[name=reason]", form);
    return select ? $$("option", select).filter(function (o) { return o.value && !o.disabled && !o.hidden; }) : [];
  }
  function buildReasonList(form) {
    var list = $("[data-reason-options]", form);
    var input = $("[data-reason-filter]", form);
    if (!list || !input) return;
    var words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
    var shown = reasonCandidates(form).filter(function (o) {
      var t = o.textContent.toLowerCase();
      return words.every(function (w) { return t.indexOf(w) >= 0; });
    });
    list.innerHTML = "";
    shown.forEach(function (o, i) {
      var li = document.createElement("li");
      li.id = "reason-opt-" + i;
      li.setAttribute("role", "option");
      li.dataset.code = o.value;
      li.textContent = o.textContent;
      list.appendChild(li);
    });
    // Nothing typed: no reason is picked for the host (Enter records none);
    // a few letters: the first match is.
    reasonPick = words.length && shown.length ? 0 : -1;
    markReason(form);
  }
  function markReason(form) {
    var items = $$("[data-reason-options] li", form);
    items.forEach(function (li, i) { var on = i === reasonPick; li.classList.toggle("is-picked", on); li.setAttribute("aria-selected", on ? "true" : "false"); });
    var input = $("[data-reason-filter]", form);
    if (items[reasonPick]) { input.setAttribute("aria-activedescendant", items[reasonPick].id); items[reasonPick].scrollIntoView({ block: "nearest" }); } else input.removeAttribute("aria-activedescendant");
    reasonNote(form);
  }
  function reasonNote(form) {
    var d = form.closest("dialog");
    var note = $("[data-reason-note]", form);
    if (!d || !note) return;
    var items = $$("[data-reason-options] li", form);
    var input = $("[data-reason-filter]", form);
    var parts = [];
    if (d.dataset.note) parts.push(d.dataset.note);
    if (d.dataset.confirmArmed) parts.push(fmtText(gettextish("Это снятие с игры №{seat}: Enter ещё раз — записать, Esc — отмена."), { seat: d.dataset.seat }));
    else if (input.value.trim() && !items.length) parts.push(gettextish("Такой причины в списке нет: Enter запишет её своими словами."));
    else if (reasonPick < 0) parts.push(gettextish("Enter без выбора — без причины из списка."));
    if (d.dataset.offKinds) parts.push(d.dataset.offKinds);
    note.textContent = parts.join(" ");
  }
  document.addEventListener("input", function (e) {
    if (e.target.matches && e.target.matches("[data-reason-filter]")) { var d = e.target.closest("dialog"); if (d) d.dataset.confirmArmed = ""; buildReasonList(e.target.form); }
  });
  document.addEventListener("click", function (e) {
    var li = e.target.closest && e.target.closest("[data-reason-options] li");
    if (!li) return;
    var form = li.closest("form");
    reasonPick = $$("[data-reason-options] li", form).indexOf(li);
    markReason(form);
    $("select[name=reason]", form).value = li.dataset.code;
  });
  document.addEventListener("keydown", function (e) {
    var input = e.target;
    if (!input.matches || !input.matches("[data-reason-filter]")) return;
    var form = input.form, d = input.closest("dialog");
    var items = $$("[data-reason-options] li", form);
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      if (!items.length) return;
      reasonPick = e.key === "ArrowDown" ? Math.min(items.length - 1, reasonPick + 1) : Math.max(-1, reasonPick - 1);
      markReason(form);
      return;
    }
    if (e.key !== "Enter") return;
    e.preventDefault();
    // The console's safety rules hold here too: no auto-repeat, no Enter in
    // the first 400 ms (the key that opened the dialog is not a choice).
    if (e.repeat) return;
    if (performance.now() - parseFloat(d.dataset.openedAt || "0") < STEP_GUARD_MS) { showHint(gettextish("Окно только что открылось: нажмите Enter ещё раз."), true); return; }
    var select = $("select[name=reason]", form);
    var text = $("input[name=reason_text]", form);
    select.value = items[reasonPick] ? items[reasonPick].dataset.code : "";
    if (!items[reasonPick] && input.value.trim() && !text.value.trim()) text.value = input.value.trim();
    var kind = ($("input[name=do]:checked", form) || {}).value;
    if ((d.dataset.confirm || REMOVAL_KINDS.indexOf(kind) >= 0) && !d.dataset.confirmArmed) {
      d.dataset.confirmArmed = "1";
      d.dataset.openedAt = String(performance.now());
      reasonNote(form);
      return;
    }
    form.requestSubmit();
  });
  document.addEventListener("htmx:afterRequest", function (e) {
    var d = e.detail.elt && e.detail.elt.closest && e.detail.elt.closest("dialog");
    if (d && d.open) d.close();
  });
  // Issue 26-1: focus has one owner. Whatever closed a dialog (Esc, «Отмена»,
  // «Записать», the mouse), the browser hands the focus back to the control
  // that opened it (a «⋯» whose Space would open it again); the step's primary
  // control takes it instead, and no focus target from before survives.
  document.addEventListener("close", function (e) {
    if (!e.target || e.target.tagName !== "DIALOG") return;
    focusIntent = null;
    focusOwner = null;
    var pc = primaryControl();
    var target = pc && !pc.disabled && pc.offsetParent ? pc : document.getElementById("step-panel");
    if (target) ownFocus(target, false);
  }, true);

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

  // --- keyboard: every rule of issues 12 and 13 lives here ---------------------------------------
  //
  // 1. A focused control (reached with Tab) gets Space, Enter and the arrows as
  //    the browser gives them; the step's shortcuts act only when the focus is
  //    on the page itself or on the step's own primary control (13-1, 12-3).
  //    A mouse click leaves no control focused, so Enter stays «the step's
  //    Enter» as its label says. Digits and letters collide with nothing a
  //    control does natively, so they act wherever the focus is (not in text).
  // 2. The primary key never records a choice whose input the host has not
  //    given: a miss, «no check», «no best move» are Shift+Space with a
  //    confirmation; «Записать выстрел» / «Принято» wait for their input (12-1).
  // 3. Key auto-repeat, and Space/Enter within STEP_GUARD_MS after the step
  //    changed, never act on the new step (12-1): a double press at the end of
  //    the last word before the Night records nothing on the Night's step.
  // 4. A refused key always says why, with the rule id (12-8); the same digit
  //    twice in one speech is a repeat, not a second support (13-4).
  // 5. After each swap the focus returns to the control used, or to the step's
  //    primary control (13-2); confirmations are announced from a live region
  //    outside the swapped part (13-5).
  var STEP_GUARD_MS = 400;
  var foulArmed = 0;
  var armedKind = "foul";
  // Issue 26-5: a letter, then a seat digit (Latin and Russian layouts).
  var PENALTY_KEYS = { f: "foul", "а": "foul", w: "warning", "ц": "warning", g: "grey_card", "п": "grey_card", d: "disqualify", "в": "disqualify", x: "remove", "ч": "remove", k: "ppk", "л": "ppk" };
  var PENALTY_PROMPTS = {
    foul: "Фол: нажмите номер места", warning: "Предупреждение: нажмите номер места", grey_card: "Серая карточка: нажмите номер места",
    disqualify: "Дисквалифицирующий фол: нажмите номер места", remove: "Снять с игры (X4): нажмите номер места", ppk: "ППК команде игрока: нажмите номер места"
  };
  var hint = null;
  var hintTimer = 0;
  var stepKey = null;
  var stepChangedAt = -1e9; // a page load is not a step change
  var settleTimer = 0;
  var focusIntent = null; // a selector of the control to focus after the swap
  // Issue 26-1: the control the host himself put the focus on in this step
  // (Tab, a click on a text field …) keeps Space and Enter; a focus the page
  // moved (a dialog closing, a swap) or one left over from an earlier step
  // does not.
  var focusOwner = null; // { el, step }
  var focusIntentStep = null;
  var movingFocus = false;
  var lastPointer = -1e9; // performance.now() of the last pointer press

  function showHint(text, refusal) {
    hint = hint || document.getElementById("key-hint");
    if (!hint) return;
    hint.textContent = text;
    hint.hidden = !text;
    hint.classList.toggle("is-refusal", !!refusal);
    clearTimeout(hintTimer);
    if (text && refusal) hintTimer = setTimeout(function () { showHint(""); }, 5000);
  }

  function markStepChange() {
    stepChangedAt = performance.now();
    document.body.classList.add("keys-settling");
    clearTimeout(settleTimer);
    settleTimer = setTimeout(function () { document.body.classList.remove("keys-settling"); }, STEP_GUARD_MS);
  }
  function settling() { return performance.now() - stepChangedAt < STEP_GUARD_MS; }

  function ownFocus(el, keepOwner) {
    movingFocus = true;
    try { el.focus({ preventScroll: true }); } finally { movingFocus = false; }
    focusOwner = keepOwner ? { el: el, step: stepKey } : null;
  }
  document.addEventListener("focusin", function (e) {
    if (movingFocus) return;
    // A dialog handing the focus back on close is not the host's doing.
    if (e.target && e.target.closest && e.target.closest("dialog")) { focusOwner = null; return; }
    focusOwner = { el: e.target, step: stepKey };
  }, true);
  function hostOwnsFocus(t) {
    return !!focusOwner && focusOwner.el === t && focusOwner.step === stepKey && !document.querySelector("dialog[open]");
  }

  function isTextEntry(t) {
    return !!t && (t.tagName === "INPUT" && !/^(radio|checkbox|button|submit|reset)$/.test(t.type) || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable);
  }
  // The step's primary control: the panel's «Enter» button, else the big
  // «␣» button (never the deliberate skip), else «В городе ночь».
  function primaryControl() {
    var g = document.getElementById("ghost-next");
    if (g) return g;
    var p = picker();
    var sub = p && $("[data-submit]", p);
    return sub || document.getElementById("next-btn") || document.getElementById("start-btn");
  }
  function isControl(t) {
    if (!t || t === document.body || t === document.documentElement) return false;
    if (t.id === "step-panel") return false;
    return !!(t.closest && t.closest("button, a[href], summary, input, select, textarea, label, [tabindex]"));
  }

  function ghostActive() { return $("#console [data-ghost-step]"); }
  // Issue 26-4: the Night's and the morning's first step waits, its clock full
  // and paused, for the host's announcement; his Space starts the clock and a
  // second Space moves on as usual. The clock's own answer («P») ends the wait too.
  function clockWaiting() {
    var c = consoleEl();
    if (!c || !c.dataset.clockWaits || ghostActive()) return null;
    var clk = $("#clock .clock", c);
    return clk && clk.dataset.running !== "1" && clk.dataset.remainingMs === clk.dataset.durationMs ? c : null;
  }
  function startHostClock(c) {
    // The start is a step of its own for the keys: a bounced double Space
    // within 400 ms never ends the step whose clock it has just started.
    markStepChange();
    window.htmx.ajax("POST", c.dataset.clockUrl, { target: "#console", swap: "outerHTML", values: { command: "start", expected_seq: c.dataset.seq } });
  }

  document.addEventListener("keydown", function (e) {
    var t = e.target;
    var key = e.key;
    if (key === "Escape") {
      showHint(""); foulArmed = 0;
      // 12-9: Esc closes «Трансляция и протокол», the focus back on its summary.
      $$("details.menu[open]").forEach(function (m) { var inside = m.contains(document.activeElement); m.open = false; if (inside) $("summary", m).focus(); });
      return;
    }
    if (isTextEntry(t) || document.querySelector("dialog[open]")) return;
    if (e.altKey || e.metaKey) return;
    if (e.ctrlKey) {
      if ((key === "z" || key === "Z" || key === "я" || key === "Я") && !e.repeat) {
        var u = document.getElementById("undo-btn");
        if (u) { e.preventDefault(); u.click(); }
      }
      return;
    }
    var isSpace = key === " " || key === "Spacebar";
    var onPrimary = t && t === primaryControl();
    // Rule 1: a focused control other than the step's primary one keeps its keys,
    // when it was reached by keyboard (:focus-visible); one a mouse click left
    // focused does not take the step's Enter.
    var keyboardFocus = isControl(t) && hostOwnsFocus(t) && (!t.matches || t.matches(":focus-visible") || t.tagName === "SUMMARY" || t.tagName === "INPUT");
    if (keyboardFocus && !onPrimary && (isSpace || key === "Enter" || /^Arrow/.test(key))) return;
    // Issue 26-3: every key the console ignores says why (a silent drop looks like a lost key).
    if (e.repeat) { if (isSpace || key === "Enter") { e.preventDefault(); showHint(gettextish("Клавиша зажата: повтор не считается. Отпустите и нажмите снова."), true); } return; } // rule 3
    if (window.consoleBusy) {
      if (isSpace || key === "Enter" || /^[0-9]$/.test(key)) { e.preventDefault(); showHint(gettextish("Предыдущее действие ещё записывается: нажмите снова, когда появится ответ."), true); }
      return;
    }

    if (isSpace) {
      e.preventDefault();
      if (settling()) { showHint(gettextish("Шаг только что сменился: нажмите ещё раз, если нужно."), true); return; } // rule 3
      var ghost = ghostActive();
      if (ghost) { if (!e.shiftKey) passGhost(ghost); return; }
      if (e.shiftKey) {
        var skip = document.getElementById("skip-btn");
        if (skip && !skip.disabled) { focusIntent = null; skip.click(); }
        return;
      }
      var waiting = clockWaiting();
      if (waiting) { startHostClock(waiting); return; }
      var next = document.getElementById("next-btn") || document.getElementById("start-btn");
      if (next && !next.disabled) { next.click(); return; }
      if (next) { showHint(gettextish("Предыдущее действие ещё записывается: нажмите снова, когда появится ответ."), true); return; }
      var c = consoleEl();
      if (c && c.dataset.deliberate) {
        refuse(deliberateRefusal(c));
        return;
      }
      toggleClock();
      return;
    }
    if (key === "Enter") {
      e.preventDefault();
      if (settling()) { showHint(gettextish("Шаг только что сменился: нажмите ещё раз, если нужно."), true); return; }
      if (ghostActive()) { refuse(gettextish("Сначала закончите этот шаг: Пробел.")); return; }
      var p = picker();
      // The primary control the page focused is not the host's: its Enter is
      // not a second Space (issue 26-1: Space, then a confirm-reflex Enter).
      var submit = (p && $("[data-submit]", p)) || (onPrimary && hostOwnsFocus(t) ? t : null);
      if (!submit && p && p.dataset.picker === "check") { refuse(gettextish("Правило N4: сначала нажмите номер проверяемого, затем Enter.")); return; }
      if (!submit) { showHint(gettextish("Enter: на этом шаге нечего записывать. Следующий шаг — Пробел."), true); return; }
      if (submit.disabled) { refuse(submitRefusal(p)); return; }
      submit.click();
      return;
    }
    if (ghostActive() && (/^[0-9]$/.test(key))) { refuse(gettextish("Сначала закончите этот шаг: Пробел.")); return; }
    if (key === "p" || key === "P" || key === "з" || key === "З") { e.preventDefault(); toggleClock(); return; }
    if (key === "?") { e.preventDefault(); document.getElementById("help-dialog").showModal(); return; }
    var penaltyKind = PENALTY_KEYS[key.toLowerCase()];
    if (penaltyKind) {
      if (e.repeat) return;
      foulArmed = Date.now();
      armedKind = penaltyKind;
      showHint(gettextish(PENALTY_PROMPTS[penaltyKind]));
      return;
    }
    if (/^[0-9]$/.test(key)) {
      e.preventDefault();
      var seat = key === "0" ? 10 : parseInt(key, 10);
      if (foulArmed && Date.now() - foulArmed < 4000) {
        foulArmed = 0;
        showHint("");
        penaltyByKeys(armedKind, seat);
        return;
      }
      pick(seat);
      flashTile(seat);
      return;
    }
    var pk = picker();
    if (pk && (key === "ArrowDown" || key === "ArrowUp") && $("[data-row]", pk)) { e.preventDefault(); moveRow(pk, key === "ArrowDown" ? 1 : -1); }
  });

  function penaltyByKeys(kind, seat) {
    var tile = document.getElementById("tile-" + seat);
    var allowed = tile ? (tile.dataset.penalties || "").split(" ") : [];
    if (allowed.indexOf(kind) < 0) { serverAct({ "do": kind, seat: seat }); return; } // the engine names the rule (F1, X4 …)
    if (kind === "foul") {
      var fouls = parseInt(tile.dataset.fouls, 10) || 0;
      // F14: the 3rd foul is announced with its reason; the 4th removes (F7), so it asks twice.
      if (fouls === 2) { openPenalty(seat, { kind: "foul", keyboard: true, note: gettextish("3-й фол объявляется с причиной (F14): выберите её или Enter без неё.") }); return; }
      if (fouls >= 3) { openPenalty(seat, { kind: "foul", keyboard: true, confirm: true, note: gettextish("4-й фол удаляет игрока (F7).") }); return; }
      var fb = $("#tile-" + seat + " .btn-foul");
      if (fb && !fb.disabled) fb.click();
      else serverAct({ "do": "foul", seat: seat });
      return;
    }
    openPenalty(seat, { kind: kind, keyboard: true, confirm: REMOVAL_KINDS.indexOf(kind) >= 0 });
  }

  function deliberateRefusal(c) {
    if (c.classList.contains("step-mafia_shot")) return gettextish("Правило N2: отметьте, кого назвал каждый чёрный, и Enter. Промах — только Shift+Пробел.");
    if (c.classList.contains("step-best_move")) return gettextish("Правило N6: отметьте номера и Enter. Без лучшего хода — только Shift+Пробел.");
    return gettextish("Правило N4: нажмите номер проверяемого и Enter. Без проверки — только Shift+Пробел.");
  }
  function submitRefusal(p) {
    var kind = p && p.dataset.picker;
    if (kind === "shots") return gettextish("Правило N2: отметьте каждого чёрного — номер или «никого».");
    if (kind === "best") return gettextish("Правило N6: назовите хотя бы один номер.");
    if (kind === "roles") return gettextish("Правило S2: нужны Шериф, Дон и две Мафии.");
    return gettextish("Сейчас нечего записывать.");
  }

  // Rule 1: a control clicked with the mouse does not keep the focus (so the
  // next Enter is the step's, as labelled); one reached with Tab does.
  document.addEventListener("pointerdown", function () { lastPointer = performance.now(); }, true);
  document.addEventListener("click", function (e) {
    if (!e.detail || performance.now() - lastPointer > 1000) return; // keyboard activation
    var el = e.target.closest && e.target.closest("#console button, #console label, #console input[type=radio], #console input[type=checkbox]");
    if (!el) return;
    focusIntent = null;
    var a = document.activeElement;
    if (a && a !== document.body && consoleEl() && consoleEl().contains(a) && !isTextEntry(a)) a.blur();
  });

  // Rule 5: remember the control a key activated; restore after the swap.
  function focusKey(el) {
    if (!el || el === document.body) return null;
    if (el.id) return "#" + el.id;
    var attrs = ["hx-vals", "data-penalty-seat", "data-slot", "data-activate", "data-open-help", "name", "value"];
    var parts = [];
    attrs.forEach(function (a) {
      if (el.hasAttribute(a)) parts.push("[" + a + "='" + String(el.getAttribute(a)).replace(/'/g, "\\'") + "']");
    });
    if (!parts.length) return null;
    var tag = el.tagName.toLowerCase();
    var row = el.closest("[data-row]");
    var prefix = row ? (row.dataset.candidate ? "[data-candidate='" + row.dataset.candidate + "'] " : row.dataset.black ? "[data-black='" + row.dataset.black + "'] " : "") : "";
    return prefix + tag + parts.join("");
  }
  document.addEventListener("htmx:beforeRequest", function (e) {
    var verb = (e.detail.requestConfig && e.detail.requestConfig.verb) || "";
    if (verb !== "post") return;
    var a = document.activeElement;
    if (a && a !== document.body && !document.querySelector("dialog[open]") && performance.now() - lastPointer > 1000 && hostOwnsFocus(a)) { focusIntent = focusKey(a); focusIntentStep = stepKey; }
  });

  function restoreFocus() {
    var c = consoleEl();
    if (!c) return;
    var a = document.activeElement;
    if (a && a.closest && a.closest("dialog[open]")) return; // after the dialog closes
    // Only when the swap took the focus away (never steal it from the menu, a text field …).
    if (a && a !== document.body && document.body.contains(a) && a.getClientRects().length) return;
    var target = null;
    // The control a key used comes back only within its own step (issue 26-1).
    if (focusIntent && focusIntentStep === stepKey) {
      try { target = document.querySelector("#console " + focusIntent) || document.querySelector(focusIntent); } catch (err) { target = null; }
      if (target && (target.disabled || !target.offsetParent)) target = null;
    }
    focusIntent = null;
    if (target) { ownFocus(target, true); return; }
    var pc = primaryControl();
    target = pc && !pc.disabled && pc.offsetParent ? pc : document.getElementById("step-panel");
    if (target) ownFocus(target, false);
  }

  // 12-9: a click outside the menu closes it.
  document.addEventListener("click", function (e) {
    $$("details.menu[open]").forEach(function (m) { if (!m.contains(e.target)) m.open = false; });
  });

  // The skip link lands on the step's primary control (13-2).
  document.addEventListener("click", function (e) {
    if (!(e.target.closest && e.target.closest("[data-skip-to-step]"))) return;
    e.preventDefault();
    var pc = primaryControl();
    (pc && !pc.disabled ? pc : document.getElementById("step-panel")).focus();
  });

  // --- a captain who left still wakes up in the script (issue 12-6) --------------------------
  // The log has no step for him (FORMAT.md); the console shows his 15 s as a
  // step of its own, passed with Space, and writes nothing.
  function ghostStoreKey(c, role) { return "console.ghost:" + c.dataset.game + ":" + c.dataset.night + ":" + role; }
  function showGhost() {
    var c = consoleEl();
    if (!c || !c.dataset.ghosts || $("[data-ghost-step]", c)) return;
    var roles = c.dataset.ghosts.split(" ");
    for (var i = 0; i < roles.length; i++) {
      if (sessionStorage.getItem(ghostStoreKey(c, roles[i]))) continue;
      var src = $("#ghost-script [data-ghost='" + roles[i] + "']", c);
      if (!src) continue;
      var box = document.createElement("div");
      box.className = "panel panel-night ghost-step";
      box.setAttribute("data-ghost-step", roles[i]);
      var h = document.createElement("h3"); h.textContent = src.dataset.title; box.appendChild(h);
      var w = document.createElement("p"); w.className = "ghost-say"; w.textContent = src.dataset.wake; box.appendChild(w);
      var clk = document.createElement("div"); clk.className = "ghost-clock"; clk.setAttribute("data-remaining-ms", "15000"); clk.setAttribute("data-running", "1"); clk.setAttribute("role", "timer"); clk.textContent = "0:15"; box.appendChild(clk);
      var d = document.createElement("p"); d.className = "ghost-say"; d.textContent = src.dataset.done; box.appendChild(d);
      var btn = document.createElement("button"); btn.type = "button"; btn.className = "btn btn-next"; btn.id = "ghost-next";
      btn.innerHTML = ""; btn.textContent = src.dataset.done + " "; var k = document.createElement("span"); k.className = "kbd"; k.textContent = "␣"; btn.appendChild(k);
      btn.addEventListener("click", function () { passGhost(box); });
      box.appendChild(btn);
      // One step on screen (issue 26-2): the wake-up takes the banner's place;
      // the logged step, its panel and its (waiting) clock are hidden by CSS.
      c.classList.add("has-ghost");
      var top = $("section.top", c);
      top.parentNode.insertBefore(box, top);
      return true;
    }
    c.classList.remove("has-ghost");
    return false;
  }
  function passGhost(box) {
    var c = consoleEl();
    if (!c || !box) return;
    sessionStorage.setItem(ghostStoreKey(c, box.dataset.ghostStep), "1");
    box.remove();
    markStepChange();
    // A step the host opens aloud (the morning) keeps waiting for his Space (26-4).
    if (!showGhost() && !c.dataset.clockWaits) startWaitingClock(c);
    restoreFocus();
  }
  // The logged step's clock waited, full, for the wake-ups: it starts now,
  // with the step (the answer is the whole console, without the script).
  function startWaitingClock(c) {
    if (!window.htmx || !c.dataset.clockUrl) return;
    window.htmx.ajax("POST", c.dataset.clockUrl, { target: "#console", swap: "outerHTML", values: { command: "start", expected_seq: c.dataset.seq } });
  }

  // Everything that follows a new #console (an action's answer, an undo, the poller).
  // Issue 26-8: a new phase (Night, Day, the morning) brings the banner and
  // the clock back into view, wherever the host had scrolled (a phone).
  var lastPhase = null;
  function scrollToPhase(c) {
    var el = $(".banner-phase", c);
    var phase = el ? el.textContent.trim() : "";
    if (lastPhase !== null && phase !== lastPhase) {
      var top = $("section.top", c) || c;
      var y = top.getBoundingClientRect().top;
      if (y < 0 || y > window.innerHeight / 3) window.scrollTo({ top: Math.max(0, window.scrollY + y - 4), behavior: "auto" });
    }
    lastPhase = phase;
  }
  function onConsoleSwapped(c) {
    scrollToPhase(c);
    var k = c.dataset.stepKey;
    if (stepKey !== null && k !== stepKey) markStepChange();
    stepKey = k;
    if (c.dataset.ghosts && !showGhost() && !$("[data-ghost-step]", c) && !c.dataset.clockWaits) startWaitingClock(c); // wake-ups passed here before
    var ok = $(".flash-zone .flash-ok", c);
    var err = $(".flash-zone .flash-error", c);
    // Errors are announced by their own role="alert".
    if (ok && !err) announce(ok.textContent.replace(/\s+/g, " ").trim());
    restoreFocus();
  }
  document.addEventListener("DOMContentLoaded", function () {
    var c = consoleEl();
    if (c) { stepKey = c.dataset.stepKey; scrollToPhase(c); if (c.dataset.ghosts && !showGhost() && !$("[data-ghost-step]", c) && !c.dataset.clockWaits) startWaitingClock(c); }
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
