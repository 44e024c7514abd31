// The spectators' page: every board, read-only, updated by the public
// side's server-sent events; nothing of the arbiter's (no ruling unless
// the organiser shows them). The boards are drawn by board.js, loaded first.
"use strict";

function card(entry) {
  return boardCard(entry, (node, v) => {
    if (v.last_ruling) node.append(el("div", { class: "ruling seen" }, v.last_ruling.text));
  });
}

async function load() {
  const res = await fetch("/boards");
  if (!res.ok) return;
  const data = await res.json();
  data.boards.forEach((v) => render(v, card));
}

load().then(() => follow("/events", load, card));
setInterval(tick, 250);
