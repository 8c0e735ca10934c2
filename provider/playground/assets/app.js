// The playground's page: rooms on the left, the picked room's messages on
// the right, a composer at the bottom. It reads the room's history, then
// follows /api/events (Server-Sent Events) for what changes; everything a
// person does is a POST with a client id, retried until the playground
// answers, so a restart of the provider in between sends it exactly once.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { rooms: new Map(), room: 0, messages: new Map(), typingUntil: 0, connected: false };

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
  const rooms = [...state.rooms.values()].sort((a, b) => b.id - a.id);
  $("no-rooms").hidden = rooms.length > 0;
  for (const r of rooms) {
    const li = document.createElement("li");
    li.dataset.room = r.id;
    li.className = r.id === state.room ? "active" : "";
    const name = document.createElement("span");
    name.className = "name";
    name.textContent = r.name;
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
  $("room-name").textContent = cur ? cur.name : "Pick a thread";
  $("room-state").textContent = cur && cur.closed ? "closed" : "";
  const open = !!cur && !cur.closed;
  $("text").disabled = !open;
  $("send").disabled = !open;
  $("file").disabled = !open;
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
  const pend = [...state.messages.values()].filter((m) => m.pending);
  state.messages = new Map(h.messages.map((m) => [m.id, m]));
  for (const p of pend) state.messages.set(p.id, p);
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
  div.className = "msg " + m.from + (m.pending ? " pending" : "") + (m.deleted ? " deleted" : "");
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
  const body = m.text || m.caption;
  if (body) {
    const t = document.createElement("div");
    t.className = "text";
    t.textContent = body;
    div.append(t);
  }
  if (m.keyboard) div.append(renderKeyboard(m));
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

function renderFile(f) {
  const box = document.createElement("div");
  box.className = "file";
  const url = "/api/files/" + encodeURIComponent(f.id);
  if (f.photo) {
    const img = document.createElement("img");
    img.src = url;
    img.alt = f.name;
    box.append(img);
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

function renderKeyboard(m) {
  const kb = document.createElement("div");
  kb.className = "kb";
  for (const row of m.keyboard) {
    const r = document.createElement("div");
    r.className = "row";
    for (const b of row) {
      if (b.url) {
        const a = document.createElement("a");
        a.href = b.url;
        a.target = "_blank";
        a.rel = "noopener noreferrer";
        a.textContent = b.text + " ↗";
        r.append(a);
        continue;
      }
      const btn = document.createElement("button");
      btn.type = "button";
      btn.textContent = b.text;
      btn.dataset.data = b.callback_data;
      btn.onclick = async () => {
        btn.classList.add("busy");
        try {
          await post("/api/rooms/" + m.room + "/press", { client_id: clientID(), message_id: m.id, data: b.callback_data });
        } catch (e) {
          toast(e);
        } finally {
          btn.classList.remove("busy");
        }
      };
      r.append(btn);
    }
    kb.append(r);
  }
  return kb;
}

let toastTimer = 0;
function toast(e) {
  const t = $("toast");
  t.textContent = e instanceof Error ? e.message : String(e);
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.hidden = true; }, 3000);
}

function dialog(text) {
  $("dialog-text").textContent = text;
  $("dialog").hidden = false;
}
$("dialog-ok").onclick = () => { $("dialog").hidden = true; };

function upsert(m) {
  if (m.room !== state.room) return;
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
    case "room":
      state.rooms.set(e.room_info.id, e.room_info);
      renderRooms();
      break;
    case "message":
      if (e.message.from === "bot" && e.room === state.room) $("typing").hidden = true;
      upsert(e.message);
      break;
    case "typing":
      if (e.room === state.room) showTyping(e.until);
      break;
    case "answer":
      if (e.room === state.room && e.text) (e.alert ? dialog : toast)(e.text);
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
  const text = $("text").value.trim(); // like Telegram's clients
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

async function sendFile(file) {
  if (!file || !state.room) return;
  const room = state.room;
  const cid = clientID();
  const pending = { id: "p-" + cid, room, from: "you", text: "📎 " + file.name, date: Date.now() / 1000, pending: true };
  state.messages.set(pending.id, pending);
  renderMessages(true);
  const form = new FormData();
  form.append("client_id", cid);
  form.append("caption", $("text").value);
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

getJSON("/api/state").then((s) => {
  $("title").textContent = s.title;
  document.title = s.title;
  setRooms(s.rooms || []);
  const wanted = Number((location.hash.match(/room=(\d+)/) || [])[1]);
  if (state.rooms.has(wanted)) pick(wanted);
}).catch(toast).finally(connect);
