// The hall's boards drawn as SVG, shared by the arbiter's page and the
// spectators': one square is 10 units, pieces are the hall's own simple
// geometric glyphs (no font, no file fetched), white pieces light with a
// dark outline and black ones dark with a light rim, so that each stands
// out on either colour of square.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";

// Each piece as SVG path data in a 10×10 square, base at y≈8.6.
const PIECE_PATHS = {
  p: "M5 2.2a1.4 1.4 0 1 1 0 2.8a1.4 1.4 0 1 1 0-2.8M3.9 5.3h2.2l.9 2.3H3ZM2.4 7.6h5.2v1H2.4Z",
  r: "M2.8 1.8h1v1h.7v-1h1v1h.7v-1h1v2.4h-.6v3.3H3.4V4.2h-.6ZM2.3 7.6h5.4v1H2.3Z",
  n: "M3 8.6 3.3 6.2C3.4 5.4 4.5 4.8 5 4.3L3.4 5 2.4 4.6 4.3 2.5 4.5 1.4 5.3 2.3C7 2.6 7.8 4.4 7.6 8.6Z",
  b: "M5 1.2a.7.7 0 1 1 0 1.4a.7.7 0 1 1 0-1.4M5 2.6C3.4 3.6 3.2 5 3.8 6.3h2.4C6.8 5 6.6 3.6 5 2.6ZM3.6 6.3h2.8l.5 1.3H3.1ZM2.3 7.6h5.4v1H2.3Z",
  q: "M1.6 2.9 3.2 6.6 3.5 2.3 5 6 6.5 2.3 6.8 6.6 8.4 2.9 7.3 7.6H2.7ZM2.3 7.6h5.4v1H2.3Z",
  k: "M4.55 1h.9v.8h.8v.8h-.8V3.4C7.8 3.2 8.4 5 7.1 6.4L6.8 7.6H3.2L2.9 6.4C1.6 5 2.2 3.2 4.55 3.4V2.6h-.8v-.8h.8ZM2.3 7.6h5.4v1H2.3Z",
};

/** An SVG element `tag` with attributes. */
function svgEl(tag, attrs) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  return node;
}

/** The position of `fen` drawn as an SVG board, White at the bottom;
 * `lastMove` (e.g. "e2e4", optional) is not known to the hall: squares are
 * plain. Every square is an SVG `rect` with `data-square` (a1…h8). */
function drawBoard(fen) {
  const svg = svgEl("svg", { viewBox: "0 0 80 80", class: "position", role: "img", "aria-label": fen });
  const rows = (fen || "").split(" ")[0].split("/");
  for (let r = 0; r < 8; r++) {
    let f = 0;
    const row = rows[r] || "8";
    const put = (piece) => {
      const square = "abcdefgh"[f] + (8 - r);
      svg.append(svgEl("rect", {
        x: f * 10, y: r * 10, width: 10, height: 10,
        class: (r + f) % 2 ? "dark" : "light", "data-square": square,
      }));
      if (piece) {
        const white = piece === piece.toUpperCase();
        const glyph = svgEl("path", {
          d: PIECE_PATHS[piece.toLowerCase()] || "",
          transform: `translate(${f * 10} ${r * 10})`,
          class: "piece " + (white ? "white" : "black"),
          "data-piece": piece,
        });
        svg.append(glyph);
      }
      f++;
    };
    for (const c of row) {
      if (f >= 8) break;
      if (/\d/.test(c)) for (let i = 0; i < +c && f < 8; i++) put(null);
      else put(c);
    }
    while (f < 8) put(null);
  }
  return svg;
}

/** h:mm:ss or m:ss of `ms`, "–" when unknown. */
function clockText(ms) {
  if (ms === null || ms === undefined) return "–";
  const s = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, r = s % 60;
  const mm = String(m).padStart(2, "0"), ss = String(r).padStart(2, "0");
  return h > 0 ? `${h}:${mm}:${ss}` : `${m}:${ss}`;
}

const boards = new Map(); // board number -> {view, at}
const TROUBLE_MS = 60000;

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v; else node.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

/** The time `side` has left now: a running clock runs down on the page
 * from the instant its view arrived. */
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

/** One side's line: a mark of its colour, the name, the clock. */
function player(entry, side) {
  const v = entry.view;
  const name = side === "white" ? v.white || "White" : v.black || "Black";
  return el("div", { class: "player " + side + (v.running === side ? " to-move" : "") },
    el("span", { class: "mark " + side, "aria-hidden": "true" }),
    el("span", { class: "name" }, name), clock(entry, side));
}

/** A board's card: Black above the board, White below, as it stands on
 * the table seen from White's side; `extra(node, view)` adds the page's
 * own parts (the arbiter's ruling). */
function boardCard(entry, extra) {
  const v = entry.view;
  const waiting = v.unacknowledged > 0;
  const alert = v.flag || waiting || v.online === false || v.fault;
  const node = el("section", {
    class: "board" + (alert ? " alert" : "") + (waiting ? " waiting" : "") +
      (v.result ? " over" : "") + (v.online === false ? " off" : ""),
    id: "board-" + v.board, "data-board": v.board,
  });
  node.append(el("h2", {}, el("span", {}, `Board ${v.board}`),
    v.result ? el("span", { class: "score" }, v.result) : null));
  node.append(player(entry, "black"));
  node.append(v.fen ? drawBoard(v.fen) : el("div", { class: "position empty" }, "no game yet"));
  node.append(player(entry, "white"));
  const meta = [];
  if (v.moves) meta.push(`${v.moves} move${v.moves === 1 ? "" : "s"}, last ${v.last_move}`);
  if (v.to_move && !v.result) meta.push(`${v.to_move} to move`);
  if (v.from_state) meta.push("from the clock's state");
  if (v.waiting) meta.push(`${v.waiting} events waiting`);
  node.append(el("div", { class: "meta" }, meta.join(" · ")));
  if (v.result) node.append(el("div", { class: "result" }, v.result_text || v.result));
  if (v.fault) node.append(el("div", { class: "result" }, "bad line: " + v.fault));
  if (extra) extra(node, v);
  return node;
}

/** Draws `view` in place of its board's card, or in board order. */
function render(view, card) {
  const entry = { view, at: Date.now() };
  boards.set(view.board, entry);
  const node = card(entry);
  const old = document.getElementById("board-" + view.board);
  if (old) { old.replaceWith(node); return; }
  const main = document.getElementById("boards");
  const after = [...main.children].find((c) => +c.dataset.board > view.board);
  main.insertBefore(node, after || null);
}

/** Runs the running clocks down between the hall's news. */
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

/** Follows the hall's server-sent events at `url`, loading every board
 * with `load` at each (re)connection. */
function follow(url, load, card) {
  const source = new EventSource(url);
  const status = document.getElementById("live");
  source.addEventListener("open", () => { status.textContent = "live"; status.className = "online"; load(); });
  source.addEventListener("boards", (e) => JSON.parse(e.data).forEach((v) => render(v, card)));
  source.addEventListener("error", () => { status.textContent = "reconnecting…"; status.className = "offline"; });
}
