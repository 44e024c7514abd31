// The arbiter's page: every board at a glance, updated by the hall's
// server-sent events; a board's log of rulings on a click. The clocks run
// down on the page between events from the instant each view arrived.
"use strict";

const csrf = document.querySelector('meta[name="csrf"]').content;
const boards = new Map(); // board number -> {view, at}
const PIECES = { K: "♔", Q: "♕", R: "♖", B: "♗", N: "♘", P: "♙", k: "♚", q: "♛", r: "♜", b: "♝", n: "♞", p: "♟" };
const TROUBLE_MS = 60000;

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v; else node.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

function clockText(ms) {
  if (ms === null || ms === undefined) return "–";
  const s = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, r = s % 60;
  const mm = String(m).padStart(2, "0"), ss = String(r).padStart(2, "0");
  return h > 0 ? `${h}:${mm}:${ss}` : `${m}:${ss}`;
}

function position(fen) {
  const grid = el("div", { class: "position", "aria-label": fen });
  const rows = fen.split(" ")[0].split("/");
  rows.forEach((row, r) => {
    let f = 0;
    for (const c of row) {
      if (/\d/.test(c)) {
        for (let i = 0; i < +c; i++, f++) grid.append(el("span", { class: (r + f) % 2 ? "dark" : "light" }));
      } else {
        grid.append(el("span", { class: (r + f) % 2 ? "dark" : "light" }, PIECES[c] || "?"));
        f++;
      }
    }
  });
  return grid;
}

function left(entry, side) {
  const v = entry.view;
  const ms = side === "white" ? v.white_ms : v.black_ms;
  if (ms === null || ms === undefined) return null;
  return v.running === side ? ms - (Date.now() - entry.at) : ms;
}

function clock(entry, side) {
  const v = entry.view, ms = left(entry, side);
  let cls = "clock";
  if (v.running === side) cls += " running";
  if (ms !== null && ms < TROUBLE_MS && !v.result) cls += " trouble";
  if (v.flag === side) cls += " flag";
  return el("span", { class: cls, "data-side": side }, clockText(ms));
}

function card(entry) {
  const v = entry.view;
  const alert = v.flag || v.unacknowledged > 0 || v.online === false || v.fault;
  const node = el("section", {
    class: "board" + (alert ? " alert" : "") + (v.result ? " over" : "") + (v.online === false ? " off" : ""),
    id: "board-" + v.board, "data-board": v.board,
  });
  node.append(el("h2", {}, el("span", {}, `Board ${v.board}`)));
  node.append(el("div", { class: "players" },
    el("span", {}, "♔ " + (v.white || "White")), clock(entry, "white"),
    el("span", {}, "♚ " + (v.black || "Black")), clock(entry, "black")));
  if (v.fen) node.append(position(v.fen));
  const meta = [];
  if (v.moves) meta.push(`${v.moves} move${v.moves === 1 ? "" : "s"}, last ${v.last_move}`);
  if (v.to_move && !v.result) meta.push(`${v.to_move} to move`);
  if (v.from_state) meta.push("from the clock's state");
  if (v.waiting) meta.push(`${v.waiting} events waiting`);
  node.append(el("div", { class: "meta" }, meta.join(" · ")));
  if (v.result) node.append(el("div", { class: "result" }, v.result_text || v.result));
  if (v.fault) node.append(el("div", { class: "result" }, "bad line: " + v.fault));
  if (v.last_ruling) {
    const r = v.last_ruling;
    const box = el("div", { class: "ruling" + (r.acknowledged_by ? " seen" : "") }, r.text);
    if (r.acknowledged_by) box.append(` (seen by ${r.acknowledged_by})`);
    else if (v.game !== null && !v.from_state) box.append(" ", ackButton(v.board, v.game, r.index));
    node.append(box);
  }
  node.addEventListener("click", (e) => { if (e.target.tagName !== "BUTTON") openLog(v.board); });
  return node;
}

function ackButton(board, game, ruling) {
  const b = el("button", { class: "ack", type: "button" }, "Seen");
  b.addEventListener("click", async (e) => {
    e.stopPropagation();
    const body = new URLSearchParams({ csrf, board, game, ruling });
    const res = await fetch("/arbiter/acknowledge", { method: "POST", body, credentials: "same-origin" });
    if (res.ok) b.replaceWith("✓"); else b.textContent = `refused (${res.status})`;
  });
  return b;
}

function render(view) {
  const entry = { view, at: Date.now() };
  boards.set(view.board, entry);
  const node = card(entry);
  const old = document.getElementById("board-" + view.board);
  if (old) { old.replaceWith(node); return; }
  const main = document.getElementById("boards");
  const after = [...main.children].find((c) => +c.dataset.board > view.board);
  main.insertBefore(node, after || null);
}

function tick() {
  for (const entry of boards.values()) {
    const v = entry.view;
    if (!v.running) continue;
    const node = document.querySelector(`#board-${v.board} .clock[data-side="${v.running}"]`);
    if (node) {
      const ms = left(entry, v.running);
      node.textContent = clockText(ms);
      node.classList.toggle("trouble", ms < TROUBLE_MS);
    }
  }
}

async function openLog(board) {
  const res = await fetch(`/arbiter/boards/${board}`, { credentials: "same-origin" });
  if (!res.ok) return;
  const data = await res.json();
  const list = document.getElementById("log-rulings");
  list.replaceChildren();
  document.getElementById("log-title").textContent = `Board ${board}, game ${data.game ?? "–"}: rulings`;
  for (const r of data.rulings) {
    const item = el("li", {}, `${clockText(r.t)} into the game: ${r.text} `);
    if (r.acknowledged_by) item.append(`(seen by ${r.acknowledged_by})`);
    else item.append(ackButton(board, data.game, r.index));
    list.append(item);
  }
  if (!data.rulings.length) list.append(el("li", {}, "No ruling."));
  document.getElementById("log").showModal();
}

async function load() {
  const res = await fetch("/arbiter/boards", { credentials: "same-origin" });
  if (res.status === 401) { location.href = "/login"; return; }
  const data = await res.json();
  data.boards.forEach(render);
}

function live() {
  const source = new EventSource("/arbiter/events");
  const status = document.getElementById("live");
  source.addEventListener("open", () => { status.textContent = "live"; status.className = "online"; load(); });
  source.addEventListener("boards", (e) => JSON.parse(e.data).forEach(render));
  source.addEventListener("error", () => { status.textContent = "reconnecting…"; status.className = "offline"; });
}

load().then(live);
setInterval(tick, 250);
