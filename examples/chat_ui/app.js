"use strict";
// Every model-supplied string goes through textContent (never innerHTML), and control characters that
// reorder or hide text (bidi overrides, isolates, marks) are shown as visible [U+XXXX] markers.
const CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;
function visible(text) {
  return String(text).replace(CONTROLS, c => "[U+" + c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0") + "]");
}
function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = visible(text);
  return node;
}
const conversation = document.getElementById("conversation");
const runStatus = document.getElementById("run-status");
const parts = new Map();   // text / reasoning part id -> element
const calls = new Map();   // toolCallId -> {root, params: Map(name -> {row, pre}), status, approval}

function call(id, name) {
  let c = calls.get(id);
  if (!c) {
    const root = el("section", "call");
    root.dataset.toolCallId = id;
    root.append(el("h3", "tool-name", name || "tool call"));
    const params = el("div", "params");
    const approval = el("div", "approval-slot");
    const status = el("div", "status", "arguments streaming…");
    root.append(approval, params, status);  // the prompt above the growing content: its buttons never move
    conversation.append(root);
    c = {root, paramsEl: params, params: new Map(), status, approval};
    calls.set(id, c);
  }
  return c;
}
function param(c, name) {
  let p = c.params.get(name);
  if (!p) {
    const row = el("div", "param streaming");
    row.dataset.name = name;
    const pre = el("pre", "value");
    row.append(el("span", "name", name), pre);
    c.paramsEl.append(row);
    p = {row, pre, raw: ""};
    c.params.set(name, p);
  }
  return p;
}
function show(p, raw) { p.raw = raw; p.pre.textContent = visible(raw); }
function setStatus(c, text) { c.status.textContent = visible(text); }

function approvalPrompt(c, data) {
  const box = el("div", "approval");
  box.dataset.approvalId = data.approvalId;
  const args = Object.entries(data.arguments || {}).map(([k, v]) => k + " = " + JSON.stringify(v)).join(", ");
  box.append(el("div", "question", "Allow " + data.toolName + " (" + args + ")?" +
                (data.streaming ? " (" + data.streaming + " still streaming)" : "")));
  const yes = el("button", "approve", "Approve");
  const no = el("button", "decline", "Decline");
  const answer = approved => {
    yes.disabled = no.disabled = true;
    fetch("/answer", {method: "POST", headers: {"content-type": "application/json"},
                      body: JSON.stringify({approvalId: data.approvalId, approved})});
  };
  yes.addEventListener("click", () => answer(true));
  no.addEventListener("click", () => answer(false));
  box.append(yes, no);
  c.approval.replaceChildren(box);
}

function handle(chunk) {
  const t = chunk.type;
  if (t === "text-start" || t === "reasoning-start") {
    const node = el("div", t === "text-start" ? "text" : "reasoning");
    parts.set(chunk.id, node);
    conversation.append(node);
  } else if (t === "text-delta" || t === "reasoning-delta") {
    const node = parts.get(chunk.id);
    if (node) node.textContent += visible(chunk.delta);
  } else if (t === "tool-input-start") {
    call(chunk.toolCallId, chunk.toolName);
  } else if (t === "data-argstream-fragment") {
    const d = chunk.data, c = calls.get(d.toolCallId);
    if (!c || d.path.length === 0) return;
    const p = param(c, String(d.path[0]));
    if (d.path.length === 1 && d.text !== undefined) show(p, p.raw + d.text);
    else if (d.path.length === 1 && d.value !== undefined) show(p, JSON.stringify(d.value));
  } else if (t === "data-argstream-parameter") {
    const d = chunk.data, c = calls.get(d.toolCallId);
    if (!c) return;
    const p = param(c, String(d.name));
    show(p, typeof d.value === "string" ? d.value : JSON.stringify(d.value, null, 2));
    p.row.classList.replace("streaming", "complete");
  } else if (t === "data-argstream-approval") {
    const d = chunk.data, c = calls.get(d.toolCallId);
    if (!c) return;
    if (d.state === "requested") approvalPrompt(c, d);
    else { c.approval.replaceChildren(el("div", "answer", d.state)); }
  } else if (t === "data-argstream-decision") {
    const c = calls.get(chunk.data.toolCallId);
    if (c) setStatus(c, "policy: " + chunk.data.mode);
  } else if (t === "tool-input-available") {
    setStatus(call(chunk.toolCallId), "arguments complete");
  } else if (t === "tool-input-error") {
    setStatus(call(chunk.toolCallId, chunk.toolName), chunk.errorText);
  } else if (t === "tool-output-denied") {
    const c = call(chunk.toolCallId);
    c.root.classList.add("denied");
    setStatus(c, "declined: not run");
  } else if (t === "tool-output-available") {
    const c = call(chunk.toolCallId);
    c.root.classList.add("ran");
    setStatus(c, "ran: " + JSON.stringify(chunk.output));
  } else if (t === "tool-output-error") {
    setStatus(call(chunk.toolCallId), "failed: " + chunk.errorText);
  } else if (t === "abort") {
    runStatus.textContent = visible("cancelled (" + (chunk.reason || "aborted") + ")");
    runStatus.dataset.state = "cancelled";
  } else if (t === "error") {
    conversation.append(el("div", "error", chunk.errorText));
  } else if (t === "finish") {
    if (runStatus.dataset.state !== "cancelled") {
      runStatus.textContent = visible("finished (" + (chunk.finishReason || "unknown") + ")");
      runStatus.dataset.state = "finished";
    }
  }
}

async function run() {
  document.getElementById("start").disabled = true;
  runStatus.textContent = "streaming…";
  runStatus.dataset.state = "streaming";
  const response = await fetch("/chat", {method: "POST"});
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const {value, done} = await reader.read();
    if (done) break;
    buffer += value;
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      for (const line of event.split("\n")) {
        if (!line.startsWith("data: ")) continue;
        const data = line.slice(6);
        if (data === "[DONE]") { runStatus.dataset.done = "1"; continue; }
        handle(JSON.parse(data));
      }
    }
  }
}
document.getElementById("start").addEventListener("click", run);
if (new URLSearchParams(location.search).has("autostart")) run();
