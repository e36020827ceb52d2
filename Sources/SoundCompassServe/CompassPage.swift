// Built with the Serve trait only (Package.swift).
#if Serve
/// The page served at `/`: plain HTML, CSS and JavaScript in the binary (no CDN, works offline).
///
/// It reads `/events` (EventSource, which reconnects by itself and resumes with
/// `Last-Event-ID`), draws a dial with every tracked source (its id, a short trail, confidence as
/// size and opacity), writes the bearing as text (also into a polite live region for screen
/// readers), names what each source is beside its bearing (`label`, with `--classify`), raises
/// an alert banner with the class and the side ("⚠ Alarm on your right", held 3 s after the
/// last alerting record), says the bands by their pitch ("pitch 0.5–3 kHz on your left": a
/// band's name such as "speech" or "alert" would read as a label), and offers vibration and
/// spoken cues, both off until turned on. States: connecting, live, quiet, disconnected.
enum CompassPage {
    static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>SoundCompass</title>
<style>
:root { --bg:#ffffff; --fg:#000000; --dim:#555555; --ring:#000000; --accent:#0047b3; --src:#b34700; --alert:#b30000; --alertfg:#ffffff; --panel:#f2f2f2; }
@media (prefers-color-scheme: dark) {
  :root { --bg:#000000; --fg:#ffffff; --dim:#bbbbbb; --ring:#ffffff; --accent:#ffd60a; --src:#6cf; --alert:#ff4d4d; --alertfg:#000000; --panel:#1a1a1a; }
}
* { box-sizing: border-box; }
html, body { margin:0; background:var(--bg); color:var(--fg); font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; font-size: 20px; line-height:1.35; }
main { max-width: 46rem; margin: 0 auto; padding: 0.75rem; display:flex; flex-direction:column; gap:0.6rem; }
header { display:flex; justify-content:space-between; align-items:center; gap:0.5rem; flex-wrap:wrap; }
h1 { font-size:1.2rem; margin:0; }
#state { font-weight:700; padding:0.2rem 0.7rem; border:3px solid var(--fg); border-radius:1rem; text-transform:uppercase; letter-spacing:0.05em; }
#state[data-state="live"] { background:var(--accent); color:var(--bg); border-color:var(--accent); }
#state[data-state="disconnected"] { background:var(--alert); color:var(--alertfg); border-color:var(--alert); }
#alert { background:var(--alert); color:var(--alertfg); font-size:1.6rem; font-weight:800; padding:0.6rem 0.8rem; border-radius:0.5rem; text-align:center; }
#alert[hidden] { display:none; }
.readout { text-align:center; }
#bearing { font-size: clamp(3rem, 15vw, 5.5rem); font-weight:800; margin:0; font-variant-numeric: tabular-nums; }
#direction { font-size:1.6rem; font-weight:700; margin:0; }
#label { font-size:1.4rem; margin:0; color:var(--accent); font-weight:700; }
#dial { width: min(88vw, 46vh, 30rem); height:auto; display:block; margin:0 auto; }
#dial .ring { fill:none; stroke:var(--ring); stroke-width:2.5; }
#dial .tick { stroke:var(--ring); stroke-width:2; }
#dial .word { fill:var(--fg); font-size:11px; font-weight:700; text-anchor:middle; dominant-baseline:middle; }
#dial .needle { stroke:var(--accent); stroke-width:5; stroke-linecap:round; transition: transform 120ms linear; }
#dial .src circle { fill:var(--src); }
#dial .src text { fill:var(--bg); font-size:10px; font-weight:800; text-anchor:middle; dominant-baseline:central; }
#dial .src text.name { fill:var(--fg); font-size:9px; font-weight:700; }
#dial .trail { fill:var(--src); }
#bands, #sources-text, #hemi { margin:0; text-align:center; }
#bands { font-size:1.2rem; }
#sources { list-style:none; padding:0; margin:0; display:flex; flex-wrap:wrap; gap:0.4rem; justify-content:center; }
#sources li { background:var(--panel); padding:0.2rem 0.6rem; border-radius:0.4rem; }
fieldset { border:2px solid var(--dim); border-radius:0.5rem; }
label.cue { display:flex; align-items:center; gap:0.6rem; padding:0.3rem 0; min-height:44px; }
label.cue input { width:1.6rem; height:1.6rem; }
footer { color:var(--dim); font-size:0.8rem; text-align:center; }
.sr { position:absolute; width:1px; height:1px; overflow:hidden; clip:rect(0 0 0 0); white-space:nowrap; }
@media (prefers-reduced-motion: reduce) { * { transition:none !important; animation:none !important; } }
</style>
</head>
<body>
<main>
<header>
  <h1>SoundCompass</h1>
  <span id="state" data-state="connecting" role="status">connecting</span>
</header>
<div id="alert" role="alert" hidden></div>
<section class="readout" aria-label="Current bearing">
  <p id="bearing" data-azimuth="">–</p>
  <p id="direction">waiting for sound</p>
  <p id="label"></p>
</section>
<svg id="dial" viewBox="-120 -120 240 240" role="img" aria-label="Compass dial: ahead is at the top">
  <circle class="ring" r="100"></circle>
  <g id="ticks"></g>
  <text class="word" x="0" y="-110">ahead</text>
  <text class="word" x="-110" y="0" transform="rotate(-90 -110 0)">left</text>
  <text class="word" x="110" y="0" transform="rotate(90 110 0)">right</text>
  <text class="word" x="0" y="111" id="behind-word">behind</text>
  <g id="trails"></g>
  <line id="needle" class="needle" x1="0" y1="0" x2="0" y2="-88" opacity="0.25"></line>
  <g id="srcs"></g>
</svg>
<p id="hemi"></p>
<p id="bands" aria-label="Bands"></p>
<ul id="sources" aria-label="Tracked sources"></ul>
<div id="announce" class="sr" aria-live="polite" aria-atomic="true"></div>
<fieldset>
  <legend>Cues when you are not looking (off until you turn them on)</legend>
  <label class="cue"><input type="checkbox" id="vibrate"> Vibrate when a new loud sound appears</label>
  <label class="cue"><input type="checkbox" id="speak"> Speak the direction (at most every 4 s)</label>
</fieldset>
<footer><span id="info"></span> <span id="delay"></span></footer>
</main>
<script>
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const params = new URLSearchParams(location.search);
  const token = params.get("token");
  const eventsURL = "events" + (token ? "?token=" + encodeURIComponent(token) : "");
  const statusURL = "status" + (token ? "?token=" + encodeURIComponent(token) : "");
  const NS = "http://www.w3.org/2000/svg";
  const TRAIL = 24, QUIET_MS = 2000, SILENT_MS = 3000, SPEAK_MS = 4000, LOUD_DBFS = -40, ALERT_HOLD_MS = 3000;
  const trails = new Map(), seen = new Set();
  let lastMessage = 0, lastActive = 0, es = null, reconnectTimer = null, lastSpoken = 0, lastSpokenText = "";
  let lastAnnounce = 0, lastAnnounced = "", state = "", lastAlert = 0;
  window.scLatencies = [];
  window.scRecords = 0;
  window.scFirstAlertTime = null;

  for (let a = 0; a < 360; a += 30) {
    const t = document.createElementNS(NS, "line");
    const r = a * Math.PI / 180;
    t.setAttribute("class", "tick");
    t.setAttribute("x1", 92 * Math.sin(r)); t.setAttribute("y1", -92 * Math.cos(r));
    t.setAttribute("x2", 100 * Math.sin(r)); t.setAttribute("y2", -100 * Math.cos(r));
    $("ticks").appendChild(t);
  }

  function setState(s) {
    if (s === state) return;
    state = s;
    const el = $("state");
    el.dataset.state = s;
    el.textContent = s === "disconnected" ? "disconnected – reconnecting" : s;
  }

  function word(azimuth, hemisphere) {
    if (hemisphere === "back" || Math.abs(azimuth) > 90) return "behind";
    const lateral = Math.sin(azimuth * Math.PI / 180);
    if (lateral < -0.66) return "far left";
    if (lateral < -0.20) return "left";
    if (lateral < 0.20) return "ahead";
    if (lateral < 0.66) return "right";
    return "far right";
  }
  function side(azimuth) {
    const w = word(azimuth, "unknown");
    return w === "ahead" ? "ahead" : "on your " + w.replace("far ", "");
  }
  function signed(deg) { const r = Math.round(deg); return (r > 0 ? "+" : r < 0 ? "−" : "") + Math.abs(r) + "°"; }
  function point(azimuth, radius) {
    const r = azimuth * Math.PI / 180;
    return [radius * Math.sin(r), -radius * Math.cos(r)];
  }

  function speak(text, force) {
    if (!$("speak").checked || !("speechSynthesis" in window)) return;
    const now = Date.now();
    if (!force && (now - lastSpoken < SPEAK_MS || text === lastSpokenText)) return;
    lastSpoken = now; lastSpokenText = text;
    window.speechSynthesis.cancel();
    window.speechSynthesis.speak(new SpeechSynthesisUtterance(text));
  }
  function vibrate() {
    if ($("vibrate").checked && navigator.vibrate) navigator.vibrate([150, 80, 150]);
  }

  function capitalised(text) { return text ? text.charAt(0).toUpperCase() + text.slice(1) : text; }
  // The record's alert {label, azimuth, source}: "Alarm on your right".
  function alertText(r) {
    const a = r.alert;
    if (!a || typeof a !== "object") return null;
    const name = capitalised(a.label || "alert");
    const az = typeof a.azimuth === "number" ? a.azimuth : r.azimuth;
    return typeof az === "number" ? name + " " + side(az) : name;
  }
  // A band by its pitch, "0.5–3 kHz", never by its name ("speech", "alert" read as labels).
  function pitch(b) {
    if (typeof b.low_hz !== "number" || typeof b.high_hz !== "number") return "a band";
    const k = b.high_hz >= 1000;
    const f = (v) => k ? String(Math.round(v / 100) / 10) : String(Math.round(v));
    return f(b.low_hz) + "–" + f(b.high_hz) + (k ? " kHz" : " Hz");
  }

  function nearestLabelled(r, az) {
    let best = null, distance = 20;
    for (const s of Array.isArray(r.sources) ? r.sources : []) {
      if (!s.active || !s.label || typeof s.azimuth !== "number") continue;
      const d = Math.abs(s.azimuth - az);
      if (d <= distance) { distance = d; best = s; }
    }
    return best;
  }

  function drawSources(r) {
    const g = $("srcs"), tg = $("trails");
    g.textContent = ""; tg.textContent = "";
    const list = Array.isArray(r.sources) ? r.sources : [];
    const ids = new Set();
    const items = [];
    for (const s of list) {
      if (typeof s.azimuth !== "number") continue;
      ids.add(s.id);
      const t = trails.get(s.id) || [];
      if (s.active) t.push(s.azimuth);
      while (t.length > TRAIL) t.shift();
      trails.set(s.id, t);
      if (s.active && !seen.has(s.id)) {
        seen.add(s.id);
        if (typeof s.level_dbfs === "number" && s.level_dbfs >= LOUD_DBFS) vibrate();
      }
      t.forEach((az, i) => {
        const [x, y] = point(az, 78);
        const c = document.createElementNS(NS, "circle");
        c.setAttribute("class", "trail");
        c.setAttribute("cx", x.toFixed(1)); c.setAttribute("cy", y.toFixed(1));
        c.setAttribute("r", 2.5); c.setAttribute("opacity", (0.08 + 0.3 * i / TRAIL).toFixed(2));
        tg.appendChild(c);
      });
      // A source's confidence is a measured share of real sources, about 0.5…0.95
      // (OutputFormat.md): that range drives the dot's size and strength.
      const conf = Math.max(0, Math.min(1, ((s.confidence || 0) - 0.5) / 0.45));
      const [x, y] = point(s.azimuth, 78);
      const grp = document.createElementNS(NS, "g");
      grp.setAttribute("class", "src");
      grp.setAttribute("opacity", s.active ? (0.35 + 0.65 * conf).toFixed(2) : "0.25");
      const c = document.createElementNS(NS, "circle");
      c.setAttribute("cx", x.toFixed(1)); c.setAttribute("cy", y.toFixed(1)); c.setAttribute("r", (7 + 7 * conf).toFixed(1));
      const tx = document.createElementNS(NS, "text");
      tx.setAttribute("x", x.toFixed(1)); tx.setAttribute("y", y.toFixed(1));
      tx.textContent = String(s.id);
      grp.appendChild(c); grp.appendChild(tx);
      if (s.label && s.active) {
        // The name beside the dot, on the side towards the centre so that it stays on the dial.
        const [nx, ny] = point(s.azimuth, 55);
        const name = document.createElementNS(NS, "text");
        name.setAttribute("class", "name");
        name.setAttribute("x", nx.toFixed(1)); name.setAttribute("y", ny.toFixed(1));
        name.textContent = s.label.split(",")[0];
        grp.appendChild(name);
      }
      g.appendChild(grp);
      if (s.active) items.push(s.id + ": " + (s.label ? s.label.split(",")[0] + " " : "") + signed(s.azimuth) + " " + word(s.azimuth, s.hemisphere !== undefined ? s.hemisphere : r.hemisphere));
    }
    for (const id of Array.from(trails.keys())) if (!ids.has(id)) trails.delete(id);
    const ul = $("sources");
    const text = items.join("|");
    if (ul.dataset.text !== text) {
      ul.dataset.text = text;
      ul.textContent = "";
      for (const it of items) { const li = document.createElement("li"); li.textContent = it; ul.appendChild(li); }
    }
  }

  function show(r) {
    const now = Date.now();
    window.scRecords += 1;
    if (r.wall_time) {
      const delay = now - Date.parse(r.wall_time);
      if (window.scLatencies.length < 100000) window.scLatencies.push(delay);
      $("delay").textContent = "· delay " + Math.max(0, delay) + " ms";
    }
    const az = typeof r.azimuth === "number" ? r.azimuth : null;
    if (r.active) lastActive = now;
    setState(now - lastActive < QUIET_MS ? "live" : "quiet");
    const bearing = $("bearing"), needle = $("needle");
    if (az !== null && r.active) {
      bearing.textContent = signed(az);
      bearing.dataset.azimuth = az.toFixed(1);
      const w = word(az, r.hemisphere);
      $("direction").textContent = w;
      needle.setAttribute("transform", "rotate(" + az.toFixed(1) + ")");
      needle.setAttribute("opacity", (0.3 + 0.7 * Math.max(0, Math.min(1, r.confidence || 0))).toFixed(2));
      // What is at the bearing: the label of the heard source nearest it (within 20°); the
      // record's own label (the whole mixture's) only when no source is tracked.
      const named = nearestLabelled(r, az);
      const label = named ? named.label.split(",")[0] : (Array.isArray(r.sources) || !r.label ? "" : r.label.split(",")[0]);
      const score = named ? named.label_score : r.label_score;
      $("label").textContent = label ? label + (typeof score === "number" ? " (" + Math.round(score * 100) + " %)" : "") : "";
      const spoken = (label || "sound") + ", " + w;
      speak(spoken, false);
      if (spoken !== lastAnnounced && now - lastAnnounce > 1500) {
        $("announce").textContent = (label || "Sound") + " " + w + ", " + signed(az).replace("−", "minus ") + (r.hemisphere === "unknown" ? "" : ", " + (r.hemisphere === "back" ? "behind" : "ahead"));
        lastAnnounced = spoken; lastAnnounce = now;
      }
    } else if (now - lastActive >= QUIET_MS) {
      $("direction").textContent = "quiet";
      needle.setAttribute("opacity", "0.2");
    }
    $("hemi").textContent = r.hemisphere === "front" ? "front/back resolved: ahead"
      : r.hemisphere === "back" ? "front/back resolved: behind" : "front or back not yet known";
    const bands = Array.isArray(r.bands) ? r.bands.filter((b) => r.active && b.confidence >= 0.2) : [];
    // "pitch 0.1–0.5 kHz and 3–8 kHz on your right; 0.5–3 kHz on your left": the bands grouped
    // by side, each by its frequencies.
    const groups = new Map();
    for (const b of bands) { const where = side(b.azimuth); if (!groups.has(where)) groups.set(where, []); groups.get(where).push(pitch(b)); }
    const list = (names) => names.length < 2 ? names.join("") : names.slice(0, -1).join(", ") + " and " + names[names.length - 1];
    const grouped = Array.from(groups, ([where, names]) => list(names) + " " + where).join("; ");
    $("bands").textContent = grouped ? "pitch " + grouped : "";
    drawSources(r);
    const at = alertText(r);
    const box = $("alert");
    if (at) {
      const fresh = box.hidden;
      lastAlert = now;
      if (window.scFirstAlertTime === null && typeof r.time === "number") window.scFirstAlertTime = r.time;
      if (box.textContent !== "⚠ " + at) { box.textContent = "⚠ " + at; box.dataset.alert = at; }
      box.hidden = false;
      // Spoken and felt once per alert (it is held while it lasts), when the person turned cues on.
      if (fresh) { speak("alert: " + at, true); vibrate(); }
    } else if (!box.hidden && now - lastAlert >= ALERT_HOLD_MS) { box.hidden = true; box.textContent = ""; box.dataset.alert = ""; }
  }

  function connect() {
    if (reconnectTimer) { clearTimeout(reconnectTimer); reconnectTimer = null; }
    if (es) es.close();
    es = new EventSource(eventsURL);
    es.onopen = () => { lastMessage = Date.now(); };
    es.onmessage = (ev) => {
      lastMessage = Date.now();
      let r;
      try { r = JSON.parse(ev.data); } catch (e) { return; }
      show(r);
    };
    es.onerror = () => {
      setState("disconnected");
      if (es.readyState === EventSource.CLOSED) reconnectTimer = setTimeout(connect, 3000);
    };
  }
  setInterval(() => {
    if (state !== "connecting" && state !== "disconnected" && Date.now() - lastMessage > SILENT_MS) {
      setState("disconnected");
      connect();
    }
  }, 1000);
  fetch(statusURL).then((r) => r.ok ? r.json() : null).then((s) => {
    if (s) $("info").textContent = s.input + " · " + Math.round(s.sample_rate) + " Hz · " + s.array;
  }).catch(() => {});
  connect();
})();
</script>
</body>
</html>
"""#
}
#endif
