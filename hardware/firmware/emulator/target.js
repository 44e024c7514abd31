// The target (slave) side of the RP2040's I2C block (Synopsys DW_apb_i2c),
// which rp2040js models only as a controller. This replaces I2C0's register
// block with one that answers a controller on the bus: the Pi, driven by
// `Pi` below at 100 kHz. Each behaviour cites the RP2040 datasheet
// (section 4.3, "I2C"); README.md lists them and what is left out.

import { BasePeripheral } from 'rp2040js';

// Registers (4.3.17, "List of Registers").
const IC_CON = 0x00;
const IC_TAR = 0x04;
const IC_SAR = 0x08;
const IC_DATA_CMD = 0x10;
const IC_INTR_STAT = 0x2c;
const IC_INTR_MASK = 0x30;
const IC_RAW_INTR_STAT = 0x34;
const IC_RX_TL = 0x38;
const IC_TX_TL = 0x3c;
const IC_CLR_INTR = 0x40;
const IC_CLR_RX_UNDER = 0x44;
const IC_CLR_RX_OVER = 0x48;
const IC_CLR_TX_OVER = 0x4c;
const IC_CLR_RD_REQ = 0x50;
const IC_CLR_TX_ABRT = 0x54;
const IC_CLR_RX_DONE = 0x58;
const IC_CLR_ACTIVITY = 0x5c;
const IC_CLR_STOP_DET = 0x60;
const IC_CLR_START_DET = 0x64;
const IC_CLR_GEN_CALL = 0x68;
const IC_ENABLE = 0x6c;
const IC_STATUS = 0x70;
const IC_TXFLR = 0x74;
const IC_RXFLR = 0x78;
const IC_TX_ABRT_SOURCE = 0x80;
const IC_ENABLE_STATUS = 0x9c;
const IC_CLR_RESTART_DET = 0xa8;
const IC_COMP_PARAM_1 = 0xf4;
const IC_COMP_VERSION = 0xf8;
const IC_COMP_TYPE = 0xfc;

// IC_CON
const MASTER_MODE = 1 << 0;
const IC_SLAVE_DISABLE = 1 << 6;
const STOP_DET_IFADDRESSED = 1 << 7;
const TX_EMPTY_CTRL = 1 << 8;
const RX_FIFO_FULL_HLD_CTRL = 1 << 9;

// IC_RAW_INTR_STAT
const RX_UNDER = 1 << 0;
const RX_OVER = 1 << 1;
const RX_FULL = 1 << 2;
const TX_OVER = 1 << 3;
const TX_EMPTY = 1 << 4;
const RD_REQ = 1 << 5;
const TX_ABRT = 1 << 6;
const RX_DONE = 1 << 7;
const ACTIVITY = 1 << 8;
const STOP_DET = 1 << 9;
const START_DET = 1 << 10;
const GEN_CALL = 1 << 11;
const RESTART_DET = 1 << 12;

// IC_DATA_CMD, read: the first byte after the address (4.3.17, IC_DATA_CMD.FIRST_DATA_BYTE).
const FIRST_DATA_BYTE = 1 << 11;
// IC_TX_ABRT_SOURCE
const ABRT_SLVFLUSH_TXFIFO = 1 << 13;
const ABRT_SLVRD_INTX = 1 << 15;
const TX_FLUSH_CNT_SHIFT = 23;

const FIFO_DEPTH = 16; // IC_COMP_PARAM_1: 16-entry TX and RX FIFOs
const I2C0_IRQ = 23;

export class I2cTarget extends BasePeripheral {
  constructor(rp2040, now) {
    super(rp2040, 'I2C0 (target model)');
    this.now = now; // emulated ns
    this.onTxWritten = null; // the bus waits on it while SCL is held
    this.onRxPopped = null;
    this.resetBlock();
  }

  /** Power-on values (4.3.17), and what RESETS.I2C0 does: FIFOs empty, SCL let go. */
  resetBlock() {
    this.con = 0x65;
    this.tar = 0x55;
    this.sar = 0x55;
    this.enable = 0;
    this.rxTl = 0;
    this.txTl = 0;
    this.mask = 0x8ff;
    this.latched = 0;
    this.abortSource = 0;
    this.ackGeneralCall = 1;
    this.other = new Map();
    this.tx = [];
    this.rx = [];
    this.addressed = null; // null, 'read' or 'write'
    this.shifting = false; // a byte is leaving the shift register
    this.update();
  }

  get slave() {
    return (this.enable & 1) !== 0 && (this.con & MASTER_MODE) === 0 && (this.con & IC_SLAVE_DISABLE) === 0;
  }

  /** RAW_INTR_STAT: latched bits plus the two FIFO levels (4.3.16, "Operation of Interrupt Registers"). */
  get raw() {
    let r = this.latched;
    if (this.rx.length > this.rxTl) r |= RX_FULL;
    const txLevel = this.tx.length <= this.txTl;
    // TX_EMPTY_CTRL: TX_EMPTY waits until the byte being sent has gone too.
    if (txLevel && (!(this.con & TX_EMPTY_CTRL) || !this.shifting)) r |= TX_EMPTY;
    if (this.addressed !== null) r |= ACTIVITY;
    return r;
  }

  update() {
    this.rp2040.setInterrupt(I2C0_IRQ, (this.raw & this.mask) !== 0);
  }

  set(bits) {
    this.latched |= bits;
    this.update();
  }

  clear(bits) {
    const was = this.latched & bits;
    this.latched &= ~bits;
    this.update();
    return was ? 1 : 0;
  }

  readUint32(offset) {
    switch (offset) {
      case IC_CON:
        return this.con;
      case IC_TAR:
        return this.tar;
      case IC_SAR:
        return this.sar;
      case IC_DATA_CMD: {
        if (this.rx.length === 0) {
          this.set(RX_UNDER);
          return 0;
        }
        const v = this.rx.shift();
        this.update();
        if (this.onRxPopped) this.onRxPopped();
        return v;
      }
      case IC_INTR_STAT:
        return this.raw & this.mask;
      case IC_INTR_MASK:
        return this.mask;
      case IC_RAW_INTR_STAT:
        return this.raw;
      case IC_RX_TL:
        return this.rxTl;
      case IC_TX_TL:
        return this.txTl;
      case IC_CLR_INTR: {
        // Clears every latched interrupt and IC_TX_ABRT_SOURCE (4.3.17, IC_CLR_INTR).
        const was = this.latched ? 1 : 0;
        this.latched = 0;
        this.abortSource = 0;
        this.update();
        return was;
      }
      case IC_CLR_RX_UNDER:
        return this.clear(RX_UNDER);
      case IC_CLR_RX_OVER:
        return this.clear(RX_OVER);
      case IC_CLR_TX_OVER:
        return this.clear(TX_OVER);
      case IC_CLR_RD_REQ:
        return this.clear(RD_REQ);
      case IC_CLR_TX_ABRT:
        this.abortSource = 0;
        return this.clear(TX_ABRT);
      case IC_CLR_RX_DONE:
        return this.clear(RX_DONE);
      case IC_CLR_ACTIVITY:
        return 0;
      case IC_CLR_STOP_DET:
        return this.clear(STOP_DET);
      case IC_CLR_START_DET:
        return this.clear(START_DET);
      case IC_CLR_GEN_CALL:
        return this.clear(GEN_CALL);
      case IC_CLR_RESTART_DET:
        return this.clear(RESTART_DET);
      case IC_ENABLE:
        return this.enable;
      case IC_STATUS:
        return (
          (this.addressed !== null ? (1 << 6) | 1 : 0) |
          (this.rx.length === FIFO_DEPTH ? 1 << 4 : 0) |
          (this.rx.length > 0 ? 1 << 3 : 0) |
          (this.tx.length === 0 ? 1 << 2 : 0) |
          (this.tx.length < FIFO_DEPTH ? 1 << 1 : 0)
        );
      case IC_TXFLR:
        return this.tx.length;
      case IC_RXFLR:
        return this.rx.length;
      case IC_TX_ABRT_SOURCE:
        return this.abortSource;
      case IC_ENABLE_STATUS:
        return this.enable & 1;
      case IC_COMP_PARAM_1:
        return 0x00ffffef; // 16-deep FIFOs, 7/10-bit, DMA, intr_io
      case IC_COMP_VERSION:
        return 0x3230312a;
      case IC_COMP_TYPE:
        return 0x44570140;
      case 0x98:
        return this.ackGeneralCall;
    }
    return this.other.get(offset) ?? 0;
  }

  writeUint32(offset, value) {
    switch (offset) {
      case IC_CON:
        this.con = value & 0x7ff;
        return;
      case IC_TAR:
        this.tar = value & 0xfff;
        return;
      case IC_SAR:
        this.sar = value & 0x3ff;
        return;
      case IC_DATA_CMD:
        // A slave-transmitter's data: CMD must be 0 (4.3.10.1.2). While
        // TX_ABRT is set the TX FIFO is flushed and held in reset until
        // IC_CLR_TX_ABRT is read (4.3.17, IC_RAW_INTR_STAT.TX_ABRT): the
        // byte is lost.
        if (this.latched & TX_ABRT) return;
        if (this.tx.length >= FIFO_DEPTH) {
          this.set(TX_OVER);
          return;
        }
        this.tx.push(value & 0xff);
        this.update();
        if (this.onTxWritten) this.onTxWritten();
        return;
      case IC_INTR_MASK:
        this.mask = value & 0x1fff;
        this.update();
        return;
      case IC_RX_TL:
        this.rxTl = Math.min(value & 0xff, FIFO_DEPTH - 1);
        this.update();
        return;
      case IC_TX_TL:
        this.txTl = Math.min(value & 0xff, FIFO_DEPTH - 1);
        this.update();
        return;
      case IC_ENABLE:
        if ((value & 1) === 0 && (this.enable & 1) !== 0) {
          // Disabling flushes both FIFOs (4.3.10.3, "Disabling DW_apb_i2c").
          this.tx = [];
          this.rx = [];
        }
        this.enable = value & 7;
        this.update();
        return;
      case 0x98:
        this.ackGeneralCall = value & 1;
        return;
    }
    this.other.set(offset, value);
  }

  // --- what the bus does to the target ---------------------------------

  /** A START or repeated START then the address byte; true if acknowledged. */
  address(addr, read, repeated) {
    if (!this.slave || addr !== (this.sar & 0x7f)) {
      // Not for us: with STOP_DET_IFADDRESSED the STOP is not reported either.
      if (this.addressed !== null) this.addressed = null;
      return false;
    }
    // START_DET on any START, RESTART_DET on a repeated START that
    // addresses us (4.3.17, IC_RAW_INTR_STAT).
    this.set(repeated ? RESTART_DET | START_DET : START_DET);
    this.addressed = read ? 'read' : 'write';
    this.first = true;
    if (read && this.tx.length > 0) {
      // Old data in the TX FIFO at a read request is flushed with TX_ABRT
      // (4.3.17, IC_TX_ABRT_SOURCE.ABRT_SLVFLUSH_TXFIFO).
      this.abortSource = ABRT_SLVFLUSH_TXFIFO | (this.tx.length << TX_FLUSH_CNT_SHIFT);
      this.tx = [];
      this.set(TX_ABRT);
    }
    return true;
  }

  /** The controller clocks the next byte out: there is data, or RD_REQ and SCL held (4.3.10.1.2). */
  wantsByte() {
    if (this.tx.length > 0) return true;
    this.set(RD_REQ);
    return false;
  }

  /** The byte leaves the TX FIFO for the shift register. */
  takeByte() {
    this.shifting = true;
    const b = this.tx.shift();
    this.update();
    return b;
  }

  /** The byte is on the wire; `acked` is the controller's ACK (NACK ends the read: RX_DONE). */
  byteSent(acked) {
    this.shifting = false;
    if (!acked) this.latched |= RX_DONE;
    this.update();
  }

  /** Room for a received byte; with RX_FIFO_FULL_HLD_CTRL the bus waits while the RX FIFO is full. */
  rxRoom() {
    return this.rx.length < FIFO_DEPTH || !(this.con & RX_FIFO_FULL_HLD_CTRL);
  }

  /** A byte received and acknowledged (4.3.10.1.3, "Slave-Receiver Operation for a Single Byte"). */
  receive(b) {
    if (this.rx.length >= FIFO_DEPTH) {
      this.set(RX_OVER);
      return;
    }
    this.rx.push(b | (this.first ? FIRST_DATA_BYTE : 0));
    this.first = false;
    this.update();
  }

  /** STOP: STOP_DET (only if addressed, with STOP_DET_IFADDRESSED). */
  stop() {
    const was = this.addressed;
    this.addressed = null;
    if (was !== null || !(this.con & STOP_DET_IFADDRESSED)) this.latched |= STOP_DET;
    this.update();
  }
}

export { ABRT_SLVRD_INTX };
