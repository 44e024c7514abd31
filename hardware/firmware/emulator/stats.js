// The figures of a run, from the board's records.

/** The p-th percentile (0..100) of `values`, nearest rank. */
export function percentile(values, p) {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export function summary(board, pi) {
  const held = board.holds.filter((c) => c > 0);
  return {
    scl_hold_cycles: {
      worst: Math.max(0, ...board.holds),
      p99: percentile(board.holds, 99),
      reads: pi.reads,
      held: held.length,
      over_250: board.holds.filter((c) => c > 250).length,
    },
    rx_hold_cycles_worst: Math.max(0, ...board.rxHolds),
    stuck_resets: board.stuckResets.length,
    resets: board.resets,
    scans: board.scans ?? 0,
    mpr121_reads: board.ranks.reads + board.files.reads,
    instructions: board.instructions,
    cycles: Math.round(board.cycles),
    clk_sys: board.mcu.clkSys,
  };
}
