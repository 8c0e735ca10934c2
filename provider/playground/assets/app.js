// The playground's page: rooms on the left, the picked room's messages on
// the right, a composer at the bottom. It reads the room's history, then
// follows /api/events (Server-Sent Events) for what changes; everything a
// person does is a POST with a client id, retried until the playground
// answers, so a restart of the provider in between sends it exactly once.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { rooms: new Map(), room: 0, messages: new Map(), typingUntil: 0, connected: false };
let recorder = null; // the MediaRecorder of a voice note being recorded

function clientID() {
  if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// post sends body (JSON, or FormData) until the playground answers; a
// network error or a 5xx is retried with the same client id, a 4xx is
// final.
async function post(path, body) {
  let wait = 200;
  for (;;) {
    let resp;
    try {
      const init = { method: "POST", credentials: "same-origin" };
      if (body instanceof FormData) init.body = body;
      else { init.body = JSON.stringify(body); init.headers = { "Content-Type": "application/json" }; }
      resp = await fetch(path, init);
    } catch (e) {
      resp = null; // the playground is restarting: try again
    }
    if (resp && resp.ok) return resp.json();
    if (resp && resp.status < 500) {
      let msg = resp.statusText;
      try { msg = (await resp.json()).error || msg; } catch (e) { /* keep the status text */ }
      throw new Error(msg);
    }
    await sleep(wait);
    wait = Math.min(wait * 2, 2000);
  }
}

async function getJSON(path) {
  const resp = await fetch(path, { credentials: "same-origin" });
  if (!resp.ok) throw new Error(resp.status + " " + resp.statusText);
  return resp.json();
}

function setRooms(list) {
  state.rooms = new Map(list.map((r) => [r.id, r]));
  renderRooms();
}

function renderRooms() {
  const ul = $("room-list");
  ul.textContent = "";
  // The control room (commands to chatbus itself) first, then the
  // sessions' rooms, newest first.
  const rooms = [...state.rooms.values()].sort((a, b) => (b.control ? 1 : 0) - (a.control ? 1 : 0) || b.id - a.id);
  $("no-rooms").hidden = rooms.some((r) => !r.control);
  for (const r of rooms) {
    const li = document.createElement("li");
    li.dataset.room = r.id;
    li.className = (r.id === state.room ? "active" : "") + (r.control ? " control" : "");
    li.title = r.control ? "commands to chatbus: sessions, status, restart <provider>, stop <slot>, new <template>, help" : "";
    const name = document.createElement("span");
    name.className = "name";
    name.textContent = r.control ? "⚙ control" : r.name;
    li.append(name);
    if (r.closed) {
      const b = document.createElement("span");
      b.className = "badge";
      b.textContent = "closed";
      li.append(b);
    }
    li.onclick = () => pick(r.id);
    ul.append(li);
  }
  const cur = state.rooms.get(state.room);
  $("room-name").textContent = cur ? (cur.control ? "control: commands to chatbus" : cur.name) : "Pick a thread";
  $("text").placeholder = cur && cur.control ? "A command: sessions, status, restart <provider>, stop <slot>, help"
    : "Write a message… (Enter sends, Shift+Enter breaks the line)";
  $("room-state").textContent = cur && cur.closed ? "closed" : "";
  const open = !!cur && !cur.closed;
  $("text").disabled = !open;
  $("send").disabled = !open;
  $("file").disabled = !open;
  $("record").disabled = !open && !recorder;
}

async function pick(id) {
  state.room = id;
  location.hash = "room=" + id;
  renderRooms();
  await loadHistory();
  $("text").focus();
}

async function loadHistory() {
  const id = state.room;
  if (!id) return;
  const h = await getJSON("/api/rooms/" + id + "/messages");
  if (state.room !== id) return;
  // The history is a snapshot: what the live stream showed meanwhile (a
  // newer state of a message, a message after the snapshot, one being
  // sent) stays.
  const shown = [...state.messages.values()].filter((m) => m.room === id);
  const byID = new Map(shown.map((m) => [m.id, m]));
  const last = h.messages.length ? h.messages[h.messages.length - 1].id : 0;
  state.messages = new Map(h.messages.map((m) => {
    const s = byID.get(m.id);
    return [m.id, s && s.rev > m.rev ? s : m];
  }));
  for (const m of shown) {
    if (m.pending || (!state.messages.has(m.id) && m.id > last)) state.messages.set(m.id, m);
  }
  renderMessages(true);
}

function renderMessages(scroll) {
  const box = $("messages");
  const atBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 40;
  box.textContent = "";
  for (const m of state.messages.values()) box.append(renderMessage(m));
  if (scroll || atBottom) box.scrollTop = box.scrollHeight;
}

function renderMessage(m) {
  const div = document.createElement("div");
  div.className = "msg " + m.from + (m.pending ? " pending" : "") + (m.deleted ? " deleted" : "") + (m.prompt ? " prompt" : "");
  div.dataset.id = m.id;
  if (m.deleted) {
    div.textContent = "message deleted";
    return div;
  }
  if (m.from === "bot") {
    const f = document.createElement("div");
    f.className = "from";
    f.textContent = "follower";
    div.append(f);
  }
  if (m.reply_to) {
    const q = document.createElement("div");
    q.className = "quote";
    q.textContent = m.reply_text || "message " + m.reply_to;
    div.append(q);
  }
  if (m.file) div.append(renderFile(m.file));
  if (m.html) {
    const t = document.createElement("div");
    t.className = "text md";
    m.safe = m.safe || safeFragment(m.html); // kept with this state of the message: the list is drawn again on each change
    t.append(m.safe.cloneNode(true));
    div.append(t);
  } else if (m.text) {
    const t = document.createElement("div");
    t.className = "text";
    t.textContent = m.text;
    div.append(t);
  }
  if (m.buttons && m.buttons.length) div.append(renderButtons(m));
  const rs = m.reactions || {};
  if ((rs.bot && rs.bot.length) || (rs.you && rs.you.length)) {
    const box = document.createElement("div");
    box.className = "reactions";
    for (const [who, list] of Object.entries(rs)) {
      for (const e of list || []) {
        const s = document.createElement("span");
        s.className = who === "you" ? "mine" : "theirs";
        s.textContent = e;
        box.append(s);
      }
    }
    div.append(box);
  }
  if (m.answer) {
    const a = document.createElement("div");
    a.className = "answer";
    a.textContent = "↳ " + m.answer;
    div.append(a);
  }
  const meta = document.createElement("div");
  meta.className = "meta";
  meta.textContent = (m.pending ? (m.error ? "not sent: " + m.error : "sending…") : new Date(m.date * 1000).toLocaleTimeString()) + (m.edited ? " · edited" : "");
  div.append(meta);
  if (!m.pending) {
    const r = document.createElement("button");
    r.className = "react";
    r.type = "button";
    r.title = "React with 👍";
    r.textContent = "👍";
    r.onclick = () => post("/api/rooms/" + m.room + "/react", { client_id: clientID(), message_id: m.id, emoji: "👍" }).catch(toast);
    div.append(r);
  }
  return div;
}

// A follower's message arrives as HTML the playground rendered from its
// Markdown and sanitized (raw HTML in the Markdown is text there, links to
// script have no destination). The page inserts it only through
// safeFragment all the same: parsed in an inert <template> (nothing in it
// runs or loads), it keeps only the elements and attributes that
// rendering writes, and links only to http, https and mailto, opened
// elsewhere. The page's Content-Security-Policy (no inline script, no
// inline style) is the last wall.
const allowedTags = new Set(["P", "BR", "STRONG", "EM", "DEL", "CODE", "PRE", "A", "UL", "OL", "LI", "BLOCKQUOTE",
  "H1", "H2", "H3", "H4", "H5", "H6", "HR", "TABLE", "THEAD", "TBODY", "TR", "TH", "TD", "INPUT"]);
const allowedAttrs = { A: ["href", "title"], CODE: ["class"], OL: ["start"], INPUT: ["type", "checked", "disabled"] };

function safeFragment(html) {
  const tpl = document.createElement("template");
  tpl.innerHTML = html;
  for (const el of [...tpl.content.querySelectorAll("*")]) {
    if (!allowedTags.has(el.tagName) || (el.tagName === "INPUT" && el.getAttribute("type") !== "checkbox")) {
      el.replaceWith(document.createTextNode(el.textContent));
      continue;
    }
    // A table cell's alignment (a style attribute, which the policy
    // forbids, or align) becomes a class.
    const align = (el.tagName === "TH" || el.tagName === "TD") &&
      /^(?:text-align:\s*)?(left|center|right);?$/.exec(el.getAttribute("style") || el.getAttribute("align") || "");
    const keep = allowedAttrs[el.tagName] || [];
    for (const a of [...el.attributes]) {
      if (!keep.includes(a.name)) el.removeAttribute(a.name);
    }
    if (align) el.className = "align-" + align[1];
    if (el.tagName === "CODE" && !/^language-[\w+#.-]+$/.test(el.getAttribute("class") || "")) el.removeAttribute("class");
    if (el.tagName === "INPUT") el.disabled = true;
    if (el.tagName === "A") {
      if (/^(https?:|mailto:)/i.test(el.getAttribute("href") || "")) {
        el.target = "_blank";
        el.rel = "noopener noreferrer";
      } else {
        el.removeAttribute("href");
      }
    }
  }
  return tpl.content;
}

function renderFile(f) {
  const box = document.createElement("div");
  box.className = "file";
  const url = "/api/files/" + encodeURIComponent(f.id);
  if (f.photo) {
    const img = document.createElement("img");
    img.src = url;
    img.alt = f.name;
    box.append(img);
  } else if (f.voice || /^audio\//.test(f.mime || "")) {
    const audio = document.createElement("audio");
    audio.controls = true;
    audio.preload = "none";
    audio.src = url;
    const a = document.createElement("a");
    a.href = url;
    a.download = f.name;
    a.textContent = (f.voice ? "🎤 voice note" : "🎵 " + f.name) + (f.seconds ? " " + Math.round(f.seconds) + "s" : "") + " (" + size(f.size) + ")";
    box.append(audio, a);
  } else {
    const a = document.createElement("a");
    a.href = url;
    a.download = f.name;
    a.textContent = "📄 " + f.name + " (" + size(f.size) + ")";
    box.append(a);
  }
  return box;
}

function size(n) {
  if (n < 1024) return n + " B";
  if (n < 1 << 20) return (n / 1024).toFixed(1) + " KiB";
  return (n / (1 << 20)).toFixed(1) + " MiB";
}

// renderButtons is the row of buttons under a follower's message: a
// press is sent to the playground, which tells the follower.
function renderButtons(m) {
  const row = document.createElement("div");
  row.className = "kb";
  for (const b of m.buttons) {
    if (b.url) { // only in history from before the message verbs
      const a = document.createElement("a");
      a.href = /^https?:/i.test(b.url) ? b.url : "#";
      a.target = "_blank";
      a.rel = "noopener noreferrer";
      a.textContent = b.label + " ↗";
      row.append(a);
      continue;
    }
    const btn = document.createElement("button");
    btn.type = "button";
    btn.textContent = b.label;
    btn.dataset.data = b.data;
    btn.onclick = async () => {
      btn.classList.add("busy");
      try {
        await post("/api/rooms/" + m.room + "/press", { client_id: clientID(), message_id: m.id, data: b.data });
      } catch (e) {
        toast(e);
      } finally {
        btn.classList.remove("busy");
      }
    };
    row.append(btn);
  }
  return row;
}

let toastTimer = 0;
function toast(e) {
  const t = $("toast");
  t.textContent = e instanceof Error ? e.message : String(e);
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.hidden = true; }, 3000);
}

// upsert shows m unless a newer state of it is shown already: the live
// stream and the answers to the page's own requests may arrive out of
// order.
function upsert(m) {
  if (m.room !== state.room) return;
  const shown = state.messages.get(m.id);
  if (shown && shown.rev > m.rev) return;
  state.messages.set(m.id, m);
  renderMessages(false);
}

function showTyping(until) {
  state.typingUntil = until;
  const t = $("typing");
  t.textContent = "follower is typing…";
  t.hidden = false;
  setTimeout(() => { if (Date.now() >= state.typingUntil) t.hidden = true; }, Math.max(0, until - Date.now()) + 50);
}

function onEvent(e) {
  switch (e.type) {
    case "rooms":
      setRooms(e.rooms || []);
      if (!state.room || !state.rooms.has(state.room)) {
        const wanted = Number((location.hash.match(/room=(\d+)/) || [])[1]);
        if (state.rooms.has(wanted)) pick(wanted);
      }
      break;
    case "message":
      if (e.message.from === "bot" && e.room === state.room) $("typing").hidden = true;
      upsert(e.message);
      break;
    case "typing":
      if (e.room === state.room) showTyping(e.until);
      break;
    case "answer":
      if (e.room === state.room && e.text) toast(e.text);
      break;
  }
}

function connect() {
  const es = new EventSource("/api/events");
  es.onopen = () => {
    state.connected = true;
    $("conn").textContent = "live";
    $("conn").className = "conn live";
    loadHistory().catch(() => {}); // catch up on what happened while away
  };
  es.onerror = () => {
    state.connected = false;
    $("conn").textContent = "reconnecting…";
    $("conn").className = "conn down";
  };
  es.onmessage = (msg) => onEvent(JSON.parse(msg.data));
}

async function send() {
  const text = $("text").value.trim();
  if (!text || !state.room) return;
  $("text").value = "";
  const room = state.room;
  const cid = clientID();
  const pending = { id: "p-" + cid, room, from: "you", text, date: Date.now() / 1000, pending: true };
  state.messages.set(pending.id, pending);
  renderMessages(true);
  try {
    const m = await post("/api/rooms/" + room + "/messages", { client_id: cid, text });
    state.messages.delete(pending.id);
    if (room === state.room) upsert(m);
  } catch (e) {
    pending.error = e.message;
    renderMessages(false);
  }
}

// sendFile sends a file; voice: a recording made here ({seconds}), which
// the supervisor's transcriber turns into text for the session.
async function sendFile(file, voice) {
  if (!file || !state.room) return;
  const room = state.room;
  const cid = clientID();
  const label = voice ? "🎤 voice note" : "📎 " + file.name;
  const pending = { id: "p-" + cid, room, from: "you", text: label, date: Date.now() / 1000, pending: true };
  state.messages.set(pending.id, pending);
  renderMessages(true);
  const form = new FormData();
  form.append("client_id", cid);
  form.append("caption", $("text").value);
  if (voice) {
    form.append("voice", "1");
    form.append("seconds", String(voice.seconds));
  }
  form.append("file", file, file.name);
  $("text").value = "";
  try {
    const m = await post("/api/rooms/" + room + "/files", form);
    state.messages.delete(pending.id);
    if (room === state.room) upsert(m);
  } catch (e) {
    pending.error = e.message;
    renderMessages(false);
  }
}

$("composer").onsubmit = (e) => { e.preventDefault(); send(); };
$("text").onkeydown = (e) => {
  if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); send(); }
};
$("file").onchange = (e) => { sendFile(e.target.files[0]); e.target.value = ""; };

// The microphone button records a voice note (MediaRecorder: WebM/Opus in
// Chromium and Firefox) until pressed again, then sends it.
async function toggleRecording() {
  const btn = $("record");
  if (recorder) {
    recorder.stop();
    return;
  }
  if (!state.room) return;
  let stream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({ audio: true });
  } catch (e) {
    toast(new Error("no microphone: " + e.message));
    return;
  }
  const chunks = [];
  const started = Date.now();
  const r = new MediaRecorder(stream);
  r.ondataavailable = (e) => { if (e.data.size) chunks.push(e.data); };
  r.onstop = () => {
    stream.getTracks().forEach((t) => t.stop());
    recorder = null;
    btn.classList.remove("recording");
    btn.textContent = "🎤";
    renderRooms();
    const type = (r.mimeType || "audio/webm").split(";")[0];
    const ext = type.includes("ogg") ? "ogg" : type.includes("mp4") ? "m4a" : "webm";
    sendFile(new File(chunks, "voice." + ext, { type }), { seconds: (Date.now() - started) / 1000 });
  };
  recorder = r;
  r.start();
  btn.classList.add("recording");
  btn.textContent = "■";
}
if (window.MediaRecorder && navigator.mediaDevices) {
  $("record").hidden = false;
  $("record").onclick = toggleRecording;
}

getJSON("/api/state").then((s) => {
  $("title").textContent = s.title;
  document.title = s.title;
  setRooms(s.rooms || []);
  const wanted = Number((location.hash.match(/room=(\d+)/) || [])[1]);
  if (state.rooms.has(wanted)) pick(wanted);
}).catch(toast).finally(connect);
