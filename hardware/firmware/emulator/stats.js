// The figures of a run, from the board's records.

/** The p-th percentile (0..100) of `values`, nearest rank. */
export function percentile(values, p) {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** DEBOUNCE_MS of the firmware's core: a change is due on the line 20 ms after the hand. */
const DEBOUNCE_NS = 20e6;

/**
 * The interrupt line's latency: from the moment a change is due (its first
 * edge + the debounce) to the line's falling edge, for changes made while
 * the line was released (else there is no edge to see).
 */
function intLatencies(board) {
  const out = [];
  const edges = board.intEdges;
  let e = 0;
  for (const c of board.changes) {
    while (e < edges.length && edges[e][0] < c) e++;
    const before = e > 0 ? edges[e - 1][1] : false;
    if (before) continue; // the line was already low
    let f = e;
    while (f < edges.length && !edges[f][1]) f++;
    if (f < edges.length && edges[f][0] - c < DEBOUNCE_NS + 5e6) out.push(edges[f][0] - c - DEBOUNCE_NS);
  }
  return out;
}

export function summary(board, pi) {
  const lat = intLatencies(board);
  const held = board.holds.filter((c) => c > 0);
  return {
    scl_hold_cycles: {
      worst: Math.max(0, ...board.holds),
      p99: percentile(board.holds, 99),
      reads: pi.reads,
      held: held.length,
      over_250: board.holds.filter((c) => c > 250).length,
    },
    int_latency_us: {
      median: Math.round(percentile(lat, 50) / 1000),
      worst: Math.round(Math.max(0, ...lat) / 1000),
      n: lat.length,
    },
    stuck_reset_after_us: board.stuckResets.filter((r) => r.after !== null).map((r) => Math.round(r.after / 1000)),
    slowest: [...board.slowHolds].sort((a, c) => c.cycles - a.cycles).slice(0, 5),
    rx_hold_cycles_worst: Math.max(0, ...board.rxHolds),
    flash_erases: board.flashChip ? board.flashChip.erases : 0,
    resets: board.resets,
    scans: board.scans ?? 0,
    mpr121_reads: board.ranks.reads + board.files.reads,
    instructions: board.instructions,
    cycles: Math.round(board.cycles),
    clk_sys: board.mcu.clkSys,
  };
}
