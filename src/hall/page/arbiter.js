// The arbiter's page: every board at a glance, updated by the hall's
// server-sent events; a board's log of rulings on a click. The clocks run
// down on the page between events from the instant each view arrived.
// The boards are drawn by board.js, loaded first.
"use strict";

const csrf = document.querySelector('meta[name="csrf"]').content;

function card(entry) {
  return boardCard(entry, (node, v) => {
    if (v.last_ruling) {
      const r = v.last_ruling;
      const box = el("div", { class: "ruling" + (r.acknowledged_by ? " seen" : "") }, r.text);
      if (r.acknowledged_by) box.append(` (seen by ${r.acknowledged_by})`);
      else if (v.game !== null && !v.from_state) box.append(" ", ackButton(v.board, v.game, r.index));
      node.append(box);
    }
    node.addEventListener("click", (e) => { if (e.target.tagName !== "BUTTON") openLog(v.board); });
  });
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
  data.boards.forEach((v) => render(v, card));
}

load().then(() => follow("/arbiter/events", load, card));
setInterval(tick, 250);
