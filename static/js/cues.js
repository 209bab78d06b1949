/* Phase sounds for the host: optional cues scheduled on the Web Audio clock.
 *
 * A timer in a background tab is throttled (Chrome runs it at most once a
 * second, once a minute after a while), so the cues are not played from a
 * timer: when the console shows a new step or its clock changes, every cue of
 * that step is scheduled ahead on the AudioContext's own timeline, which plays
 * on time in a background tab; a change cancels what was scheduled and plans
 * again. The cues, each switchable and remembered in this browser
 * (localStorage "console.cues"):
 *   speech_end   — a speech, tie speech or last word reaches zero;
 *   vote_count   — the 4 s count of one candidate (V2) and the 5 s for gestures:
 *                  a tick a second and a tone at the end;
 *   night_steps  — the Night's 15 s steps (shot, checks, best move): the last
 *                  three seconds ticked, a tone at zero;
 *   night_music  — a quiet drone while the Night runs.
 * A screen wake lock keeps the host's device awake while a game runs.
 * `MafiaCues.plan()` and `MafiaCues.planCount()` are pure (tests call them).
 */
(function () {
  "use strict";
  var STORE = "console.cues";
  var SPEECH_STEPS = { speech: 1, tie_speech: 1, last_word: 1 };
  var NIGHT_STEPS = { mafia_shot: 1, don_check: 1, sheriff_check: 1, best_move: 1, ghost_don: 1, ghost_sheriff: 1 };
  var NIGHT_MUSIC_STEPS = { dogovorka: 1, free_seating: 1, mafia_shot: 1, don_check: 1, sheriff_check: 1, best_move: 1, ghost_don: 1, ghost_sheriff: 1 };

  // --- planning (pure) ---------------------------------------------------------------
  function tone(at, freq, ms, kind) { return { at: at, freq: freq, ms: ms, kind: kind }; }

  /** The cues of a step, in ms from now: clock = {step, remainingMs, running}. */
  function plan(clock, prefs) {
    var out = [];
    if (!clock || !clock.running || !(clock.remainingMs > 0)) return out;
    var rem = clock.remainingMs;
    if (SPEECH_STEPS[clock.step] && prefs.speech_end) {
      out.push(tone(rem, 660, 250, "speech_end"), tone(rem + 350, 660, 250, "speech_end"));
    }
    if (NIGHT_STEPS[clock.step] && prefs.night_steps) {
      for (var s = 3; s >= 1; s--) if (rem - s * 1000 >= 0) out.push(tone(rem - s * 1000, 520, 90, "night_tick"));
      out.push(tone(rem, 440, 400, "night_end"));
    }
    return out;
  }

  /** A count of `seconds` started now (V2's 4 s per candidate, the 5 s for gestures). */
  function planCount(seconds, prefs) {
    var out = [];
    if (!prefs.vote_count || !(seconds > 0)) return out;
    for (var i = 0; i < seconds; i++) out.push(tone(i * 1000, 740, 90, "count_tick"));
    out.push(tone(seconds * 1000, 990, 250, "count_end"));
    return out;
  }

  function wantsMusic(step, prefs) { return !!(prefs.night_music && NIGHT_MUSIC_STEPS[step]); }

  window.MafiaCues = { plan: plan, planCount: planCount, wantsMusic: wantsMusic };

  var root = document.getElementById("console");
  if (!root) return; // loaded for its functions only (tests)

  // --- preferences -------------------------------------------------------------------
  function prefs() {
    try { return JSON.parse(localStorage.getItem(STORE) || "{}") || {}; } catch (e) { return {}; }
  }
  function setPref(name, on) {
    var p = prefs(); p[name] = on; localStorage.setItem(STORE, JSON.stringify(p));
    replan(true);
  }
  function syncBoxes() {
    var p = prefs();
    document.querySelectorAll("[data-cue-pref]").forEach(function (box) { box.checked = !!p[box.dataset.cuePref]; });
  }
  document.addEventListener("change", function (ev) {
    var box = ev.target.closest && ev.target.closest("[data-cue-pref]");
    if (box) setPref(box.dataset.cuePref, box.checked);
  });

  // --- audio -------------------------------------------------------------------------
  var ctx = null, scheduled = [], music = null;
  function audio() {
    if (!ctx) {
      var Ctor = window.AudioContext || window.webkitAudioContext;
      if (!Ctor) return null;
      ctx = new Ctor();
    }
    if (ctx.state === "suspended") ctx.resume();
    return ctx;
  }
  // Autoplay rules: the context may only start after the host's gesture; he presses keys all game.
  ["keydown", "pointerdown"].forEach(function (t) { document.addEventListener(t, function () { if (anyOn()) audio(); }, { capture: true }); });
  function anyOn() { var p = prefs(); return !!(p.speech_end || p.vote_count || p.night_steps || p.night_music); }

  function play(cues, keep) {
    var a = audio();
    if (!a) return;
    var now = a.currentTime;
    cues.forEach(function (c) {
      var o = a.createOscillator(), g = a.createGain();
      o.type = "sine"; o.frequency.value = c.freq;
      g.gain.value = 0.18;
      o.connect(g); g.connect(a.destination);
      var t = now + c.at / 1000;
      o.start(t); o.stop(t + c.ms / 1000);
      if (keep) keep.push(o);
    });
  }
  function cancel() {
    scheduled.forEach(function (o) { try { o.stop(); } catch (e) { /* already done */ } });
    scheduled = [];
  }
  function startMusic() {
    var a = audio();
    if (!a || music) return;
    var out = a.createGain(), lfo = a.createOscillator(), depth = a.createGain(), filter = a.createBiquadFilter();
    filter.type = "lowpass"; filter.frequency.value = 600;
    out.gain.setValueAtTime(0, a.currentTime);
    out.gain.linearRampToValueAtTime(0.05, a.currentTime + 2);
    lfo.frequency.value = 0.08; depth.gain.value = 0.02;
    lfo.connect(depth); depth.connect(out.gain);
    var voices = [110, 164.8, 220.5].map(function (f) { var o = a.createOscillator(); o.type = "triangle"; o.frequency.value = f; o.connect(filter); o.start(); return o; });
    filter.connect(out); out.connect(a.destination); lfo.start();
    music = { out: out, nodes: voices.concat([lfo]) };
  }
  function stopMusic() {
    if (!music || !ctx) return;
    var m = music; music = null;
    m.out.gain.cancelScheduledValues(ctx.currentTime);
    m.out.gain.setValueAtTime(m.out.gain.value, ctx.currentTime);
    m.out.gain.linearRampToValueAtTime(0, ctx.currentTime + 1.5);
    m.nodes.forEach(function (n) { n.stop(ctx.currentTime + 1.6); });
  }

  // --- following the console ---------------------------------------------------------
  function currentClock() {
    var console_ = document.getElementById("console");
    var el = document.querySelector("#clock .clock[data-remaining-ms]");
    if (!console_) return null;
    var m = /(?:^|\s)step-(\S+)/.exec(console_.className);
    return {
      step: (console_.dataset.cueStep || (m ? m[1] : "")),
      remainingMs: el ? parseInt(el.dataset.remainingMs, 10) || 0 : 0,
      running: !!el && el.dataset.running === "1",
      key: el ? (el.dataset.key || "") + "|" + el.dataset.remainingMs + "|" + el.dataset.running : "",
      over: /(?:^|\s)step-finished(?:\s|$)/.test(console_.className) || console_.dataset.over === "1",
    };
  }
  var lastKey = null;
  function replan(force) {
    var c = currentClock();
    if (!c) return;
    if (!force && c.key + c.step === lastKey) return; // the same clock: what is scheduled stands
    lastKey = c.key + c.step;
    cancel();
    var p = prefs();
    if (anyOn() && ctx) play(plan(c, p), scheduled);
    if (wantsMusic(c.step, p) && !c.over) { if (ctx) startMusic(); } else { stopMusic(); }
    wake(!c.over);
  }
  new MutationObserver(function () { replan(false); }).observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ["data-remaining-ms", "data-running", "class"] });
  document.addEventListener("click", function (ev) {
    var b = ev.target.closest && ev.target.closest("[data-row-countdown], [data-countdown]");
    if (!b) return;
    var seconds = parseInt(b.dataset.rowCountdown || b.dataset.countdown, 10);
    if (anyOn()) play(planCount(seconds, prefs()), null);
  }, true);

  // --- screen wake lock -----------------------------------------------------------------
  var lock = null, wantLock = false;
  function wake(on) {
    wantLock = on;
    if (!("wakeLock" in navigator)) return;
    if (on && !lock && document.visibilityState === "visible") {
      navigator.wakeLock.request("screen").then(function (l) {
        lock = l;
        root.dataset.wakeLock = "1";
        l.addEventListener("release", function () { lock = null; delete root.dataset.wakeLock; });
      }).catch(function () { /* refused (battery saver, permissions): the game goes on */ });
    } else if (!on && lock) {
      lock.release(); lock = null;
    }
  }
  // The lock is dropped when the tab is hidden; take it again on return.
  document.addEventListener("visibilitychange", function () { if (document.visibilityState === "visible" && wantLock) wake(true); });

  // After the first gesture the context exists: plan what is running now.
  document.addEventListener("pointerdown", function () { setTimeout(function () { replan(true); }, 0); }, { once: true });
  document.addEventListener("keydown", function () { setTimeout(function () { replan(true); }, 0); }, { once: true });
  syncBoxes();
  replan(true);
})();
