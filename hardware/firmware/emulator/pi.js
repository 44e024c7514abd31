// The Pi's side of the board's I2C bus: a controller at 100 kHz, byte by
// byte in emulated time, waiting as long as the target holds SCL low (the
// BCM283x cannot: the hold is what is measured, § 9.1 of the protocol).

const BIT_NS = 10_000; // 100 kHz
/** The Pi gives up on a held clock after this long (a stuck bus). */
const GIVE_UP_NS = 50_000_000;

export class Pi {
  constructor(board) {
    this.board = board;
    this.reads = 0;
  }

  /** Waits `ns` of bus time. */
  wait(ns) {
    this.board.run(this.board.now + ns);
  }

  /**
   * Waits while `held()`, the target stretching SCL; returns how long (ns),
   * or -1 if the Pi gave up.
   */
  hold(held) {
    if (!held()) return 0;
    const start = this.board.now;
    const released = this.board.run(start + GIVE_UP_NS, () => !held());
    return released ? this.board.now - start : -1;
  }

  /**
   * A read the Pi walks away from after `bytes` bytes: no NACK, no STOP,
   * SCL left high (a Pi that crashed or was unplugged mid-read). The
   * target is left addressed; § 9.1 rule 4 says it must reset itself.
   */
  abandon(address, register, bytes) {
    const b = this.board;
    this.wait(BIT_NS);
    this.wait(8 * BIT_NS);
    if (!b.target.address(address, false, false)) return false;
    this.wait(BIT_NS);
    this.wait(8 * BIT_NS);
    b.target.receive(register);
    this.wait(BIT_NS);
    this.wait(BIT_NS);
    this.wait(8 * BIT_NS);
    b.target.address(address, true, true);
    this.wait(BIT_NS);
    for (let k = 0; k < bytes; k++) {
      const t = b.target;
      if (!t.wantsByte() && this.hold(() => t.tx.length === 0 && b.target === t) < 0) return false;
      t.takeByte();
      this.wait(8 * BIT_NS);
      t.byteSent(true);
      this.wait(BIT_NS);
    }
    b.abandonedAt = b.now;
    return true;
  }

  /**
   * One transaction: ops are {write: [bytes]} or {read: n}, joined by
   * repeated STARTs, ended by a STOP. Returns {ok, bytes} or {ok: false, why}.
   */
  transaction(address, ops) {
    const b = this.board;
    b.busBusy = true;
    try {
      const bytes = [];
      for (let i = 0; i < ops.length; i++) {
        const op = ops[i];
        const read = op.read !== undefined;
        this.wait(BIT_NS); // START (or repeated START)
        this.wait(8 * BIT_NS); // the address byte
        const target = b.target; // a SOFT_RESET may have replaced the chip
        if (!target.address(address, read, i > 0)) {
          this.wait(BIT_NS); // NACK
          this.wait(BIT_NS); // STOP
          return { ok: false, why: 'nack' };
        }
        this.wait(BIT_NS); // ACK
        if (read) {
          for (let k = 0; k < op.read; k++) {
            const t = b.target;
            let ns = 0;
            if (!t.wantsByte()) {
              const core = b.mcu.core;
              const where = { pc: core.PC >>> 0, ipsr: core.IPSR, primask: core.PM ? 1 : 0 };
              ns = this.hold(() => b.target === t && t.tx.length === 0 && t.addressed === 'read');
              if (ns < 0 || b.target !== t || t.addressed !== 'read') {
                this.wait(BIT_NS);
                return { ok: false, why: 'stuck' };
              }
              b.holds.push(Math.round(ns / 8));
              if (ns / 8 > 200) b.slowHolds.push({ cycles: Math.round(ns / 8), byte: k, ops: JSON.stringify(ops), ...where, pc: where.pc.toString(16) });
            } else {
              b.holds.push(0);
            }
            this.reads++;
            const byte = t.takeByte();
            this.wait(8 * BIT_NS);
            const last = k === op.read - 1;
            t.byteSent(!last);
            this.wait(BIT_NS); // ACK, or NACK on the last byte
            bytes.push(byte);
          }
        } else {
          for (const byte of op.write) {
            const t = b.target;
            const ns = this.hold(() => b.target === t && !t.rxRoom());
            if (ns < 0) return { ok: false, why: 'stuck' };
            if (ns > 0) b.rxHolds.push(Math.round(ns / 8));
            this.wait(8 * BIT_NS);
            t.receive(byte);
            this.wait(BIT_NS); // ACK
          }
        }
      }
      this.wait(BIT_NS); // STOP
      b.target.stop();
      return { ok: true, bytes };
    } finally {
      b.busBusy = false;
    }
  }
}
