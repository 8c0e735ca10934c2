// The operator console: a snapshot of the supervisor (/api/state) every
// second and after every runtime event, the events themselves as they
// happen (/api/events, Server-Sent Events), and a doctor restart per
// provider (/api/restart), whose progress and outcome stream back as JSON
// lines.
"use strict";

const $ = (id) => document.getElementById(id);
let restarting = "";

const ago = (ts) => {
  if (!ts) return "—";
  const s = Math.max(0, (Date.now() - Date.parse(ts)) / 1000);
  if (s < 1) return "now";
  if (s < 60) return s.toFixed(0) + "s ago";
  if (s < 3600) return (s / 60).toFixed(0) + "m ago";
  return (s / 3600).toFixed(1) + "h ago";
};
const since = (ts) => {
  if (!ts) return "—";
  const s = Math.max(0, (Date.now() - Date.parse(ts)) / 1000);
  if (s < 60) return s.toFixed(0) + "s";
  if (s < 3600) return Math.floor(s / 60) + "m" + Math.floor(s % 60) + "s";
  return Math.floor(s / 3600) + "h" + Math.floor((s % 3600) / 60) + "m";
};
const enumName = (v, prefix) => (v || "").replace(prefix, "").toLowerCase() || "—";
const num = (v) => Number(v || 0);
// dur formats a protojson Duration ("0.023164378s").
const dur = (d) => {
  const s = parseFloat(d || "0");
  return s < 1 ? (s * 1000).toFixed(s < 0.01 ? 1 : 0) + "ms" : s.toFixed(2) + "s";
};

function cell(tr, text, cls) {
  const td = document.createElement("td");
  td.textContent = text;
  if (cls) td.className = cls;
  tr.append(td);
  return td;
}

function fill(tableID, rows, cols, render) {
  const body = $(tableID).tBodies[0];
  body.textContent = "";
  if (!rows || rows.length === 0) {
    const tr = document.createElement("tr");
    const td = cell(tr, "none", "empty");
    td.colSpan = cols;
    body.append(tr);
    return;
  }
  for (const r of rows) {
    const tr = document.createElement("tr");
    render(tr, r);
    body.append(tr);
  }
}

function render(s) {
  const i = s.info || {};
  $("info").textContent = `profile ${i.profile} · pid ${i.pid} · ${i.version} · up ${since(i.started_at)} · ${i.follower_count || 0} follower(s)`;
  const j = s.journal || {};
  $("journal").textContent = `journal: ${j.total || 0} update(s) held (${j.unacked || 0} for bindings, ${j.unrouted || 0} unrouted)`;
  fill("providers", s.providers, 12, (tr, row) => {
    const p = row.info, o = row.owner || {};
    tr.dataset.provider = p.name;
    cell(tr, p.name + (p.default ? " (default)" : ""));
    cell(tr, p.platform || "—");
    const st = enumName(p.state, "PROVIDER_STATE_");
    cell(tr, st, st === "running" ? "ok" : "bad").dataset.field = "state";
    const health = p.serving ? "serving" : "not serving" + (p.health_detail || p.last_error ? ": " + (p.health_detail || p.last_error) : "");
    cell(tr, health, p.serving ? "ok" : "bad").dataset.field = "health";
    cell(tr, p.pid || "—", "mono").dataset.field = "pid";
    cell(tr, since(p.since));
    cell(tr, String(p.restarts || 0)).dataset.field = "restarts";
    const occ = o.occupancy || {};
    cell(tr, `${num(occ.attached)} / ${num(occ.inflight)} / ${num(occ.inbound)} / ${num(occ.outbound)} / ${num(occ.cleanup)}`, "mono").dataset.field = "occupancy";
    cell(tr, enumName(o.phase, "FENCE_PHASE_") + (o.admitting === false ? " (closed)" : ""));
    cell(tr, String(num(p.ingested)));
    const q = p.outbound || {};
    const waiting = num(q.queued);
    const qc = cell(tr, waiting ? `${waiting} waiting · oldest ${q.oldest_wait || "0s"}` : "empty", waiting ? "warn" : "");
    qc.dataset.field = "queue";
    qc.title = `prompts ${num(q.prompts)}, messages ${num(q.messages)}, edits ${num(q.edits)}, typing and reactions ${num(q.ambient)}; ` +
      `sent ${num(q.sent)}, coalesced ${num(q.coalesced)}, rate limited ${num(q.rate_limited)}, refused ${num(q.refused)}; ` +
      `limits: ${(q.limits || []).map((l) => `${l.name} ${l.count}/${l.per}`).join(", ") || "none"}`;
    const td = cell(tr, "");
    if (p.web_url) {
      const a = document.createElement("a");
      a.href = p.web_url;
      a.target = "_blank";
      a.rel = "noopener noreferrer";
      a.textContent = "open chat";
      td.append(a, " ");
    }
    const b = document.createElement("button");
    b.type = "button";
    b.className = "restart";
    b.textContent = "restart";
    b.disabled = restarting !== "";
    b.onclick = () => restart(p.name);
    td.append(b);
  });
  fill("followers", s.followers, 7, (tr, f) => {
    const b = f.binding || {};
    const t = b.target || {};
    tr.dataset.instance = f.instance_id;
    cell(tr, f.instance_id, "mono");
    cell(tr, f.profile_key);
    cell(tr, b.platform || "—");
    cell(tr, b.thread_name ? `${b.slot} · ${b.thread_name}` + (t.thread ? ` (${t.thread})` : "") : "no thread");
    cell(tr, since(f.connected_at));
    cell(tr, f.subscribed ? "open" : "none", f.subscribed ? "ok" : "bad");
    cell(tr, ago(f.last_heartbeat));
  });
  fill("bindings", s.bindings, 9, (tr, bi) => {
    const b = bi.binding || {};
    const jn = bi.journal || {};
    tr.dataset.key = b.profile_key;
    cell(tr, b.profile_key);
    cell(tr, enumName(b.status, "BINDING_STATUS_"));
    cell(tr, b.slot || "—");
    cell(tr, b.thread_name || "—");
    cell(tr, (b.target || {}).provider || "—");
    cell(tr, bi.live ? "yes" : "no", bi.live ? "ok" : "");
    cell(tr, String(num(jn.unacked))).dataset.field = "unacked";
    cell(tr, String(num(jn.dropped)), num(jn.dropped) ? "bad" : "");
    cell(tr, bi.last_action || "—");
  });
  fill("deadletters", s.dead_letters, 7, (tr, d) => {
    tr.dataset.provider = d.provider;
    tr.dataset.id = d.id;
    cell(tr, d.provider);
    cell(tr, d.id, "mono");
    cell(tr, enumName(d.kind, "UPDATE_KIND_"));
    // Dead letters stored before causes were recorded are conversion failures.
    const cause = d.cause ? enumName(d.cause, "DEAD_LETTER_CAUSE_") : "conversion";
    cell(tr, cause).dataset.field = "cause";
    cell(tr, ago(d.received_at));
    cell(tr, String(num(d.retries))).dataset.field = "retries";
    const why = (d.error || "").split("\n")[0].slice(0, 300);
    const td = cell(tr, why, "bad");
    td.dataset.field = "reason";
    td.title = d.error || "";
  });
}

let refreshTimer = 0;
async function refresh() {
  clearTimeout(refreshTimer);
  try {
    const resp = await fetch("/api/state", { credentials: "same-origin" });
    if (resp.ok) render(await resp.json());
  } catch (e) {
    /* the supervisor is going away; the event stream says so */
  }
  refreshTimer = setTimeout(refresh, 1000);
}

function addEvent(e) {
  const li = document.createElement("li");
  const t = document.createElement("span");
  t.className = "time";
  t.textContent = new Date(Date.parse(e.time)).toLocaleTimeString();
  const k = document.createElement("span");
  k.className = "kind";
  k.textContent = enumName(e.kind, "EVENT_KIND_");
  li.append(t, k, document.createTextNode(e.message || ""));
  const list = $("events");
  list.prepend(li);
  while (list.children.length > 300) list.lastChild.remove();
}

function connect() {
  const es = new EventSource("/api/events");
  es.onopen = () => {
    $("conn").textContent = "live";
    $("conn").className = "conn live";
    $("events").textContent = ""; // the stream replays the recent ones
  };
  es.onerror = () => {
    $("conn").textContent = "reconnecting…";
    $("conn").className = "conn down";
  };
  es.onmessage = (m) => {
    addEvent(JSON.parse(m.data));
    clearTimeout(refreshTimer);
    refreshTimer = setTimeout(refresh, 100);
  };
}

function step(text, phase) {
  const li = document.createElement("li");
  if (phase) {
    const p = document.createElement("span");
    p.className = "phase";
    p.textContent = phase;
    li.append(p);
  }
  li.append(document.createTextNode(text));
  $("restart-steps").append(li);
}

async function restart(name) {
  if (restarting) return;
  restarting = name;
  document.querySelectorAll("button.restart").forEach((b) => { b.disabled = true; });
  $("restart").hidden = false;
  $("restart-provider").textContent = name;
  $("restart-steps").textContent = "";
  $("outcome").textContent = "";
  $("outcome").dataset.kind = "";
  try {
    const resp = await fetch("/api/restart", {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json" }, body: JSON.stringify({ provider: name }),
    });
    if (!resp.ok) {
      let msg = resp.statusText;
      try { msg = (await resp.json()).error || msg; } catch (e) { /* keep the status */ }
      throw new Error(msg);
    }
    const reader = resp.body.getReader();
    const dec = new TextDecoder();
    let buf = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += dec.decode(value, { stream: true });
      let nl;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.trim()) onRestart(JSON.parse(line));
      }
    }
  } catch (e) {
    $("outcome").textContent = "refused: " + e.message;
    $("outcome").dataset.kind = "refused";
  } finally {
    restarting = "";
    refresh();
  }
}

function onRestart(r) {
  if (r.progress) {
    const p = r.progress;
    const occ = p.occupancy ? ` (occupancy ${num(p.occupancy.attached)}/${num(p.occupancy.inflight)}/${num(p.occupancy.inbound)}/${num(p.occupancy.outbound)}/${num(p.occupancy.cleanup)})` : "";
    const blockers = p.blockers && p.blockers.length ? " — blocked by: " + p.blockers.join(", ") : "";
    step(`${p.message}${occ}${blockers} · ${dur(p.elapsed)}`, enumName(p.phase, "RESTART_PHASE_"));
  } else if (r.outcome) {
    const o = r.outcome;
    const kind = enumName(o.kind, "OUTCOME_KIND_");
    const reason = o.reason ? "{" + enumName(o.reason, "OUTCOME_REASON_") + "}" : "";
    const out = $("outcome");
    out.textContent = "";
    const k = document.createElement("span");
    k.className = "kind " + (kind === "restarted" ? "ok" : "bad");
    k.textContent = kind + reason;
    out.append("outcome: ", k, " — " + (o.message || ""));
    out.dataset.kind = kind;
  } else if (r.error) {
    step("error: " + r.error);
  }
}

refresh();
connect();
