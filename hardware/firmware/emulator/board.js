// The reference board on an emulated RP2040: the exact firmware ELF in
// rp2040js, and around it what the PCB has (hardware/firmware/README.md,
// "Wiring"): eight 74HC165s on SPI0 with their load pin and 64 sensors, two
// MPR121s on I2C1, the address strap, the open-drain interrupt line, and
// the Pi's bus on I2C0, whose target side is ./target.js.

import { BasePeripheral, Simulator } from 'rp2040js';
import { flashImage } from './elf.js';
import { loadRomStandIn } from './rom.js';
import { I2cTarget } from './target.js';

const FLASH_SIZE = 2 * 1024 * 1024;
const PIN = { SDA1: 2, SCL1: 3, SDA0: 4, SCL0: 5, SPI_RX: 16, LOAD: 17, SCK: 18, INT: 21, STRAP: 22 };

/** XIP_CTRL: no cache or stream to wait for (the firmware polls STREAM_CTR and STAT). */
class XipCtrl extends BasePeripheral {
  readUint32(offset) {
    return offset === 0x08 ? 0x3 : 0; // STAT: FLUSH_READY | FIFO_EMPTY
  }
  writeUint32() {}
}

/** One MPR121 (NXP datasheet, "Register map"): a register pointer, auto-increment, TOUCH STATUS from the hand. */
class Mpr121 {
  constructor() {
    this.regs = new Uint8Array(256);
    this.pointer = 0;
    this.electrodes = 0; // bit e: ELEe touched
    this.reads = 0;
  }
  softReset() {
    this.regs.fill(0);
    this.regs[0x5c] = 0x10;
    this.regs[0x5d] = 0x24;
  }
  start() {
    this.fresh = true;
  }
  write(b) {
    if (this.fresh) {
      this.pointer = b;
      this.fresh = false;
      return;
    }
    if (this.pointer === 0x80 && b === 0x63) this.softReset();
    else this.regs[this.pointer] = b;
    this.pointer = (this.pointer + 1) & 0xff;
  }
  read() {
    const running = (this.regs[0x5e] & 0x3f) !== 0;
    let v;
    if (this.pointer === 0x00) v = running ? this.electrodes & 0xff : 0;
    else if (this.pointer === 0x01) v = running ? (this.electrodes >> 8) & 0x1f : 0;
    else v = this.regs[this.pointer];
    this.pointer = (this.pointer + 1) & 0xff;
    this.reads++;
    return v;
  }
}

/**
 * rp2040js's I2C controller latches RX_FULL and TX_EMPTY; in the datasheet
 * both are levels, set and cleared by the FIFO's fill against IC_RX_TL and
 * IC_TX_TL (4.3.17, IC_RAW_INTR_STAT), and a new IC_INTR_MASK takes effect
 * at once (rp2040js 1.4.1 ignores writes to IC_INTR_MASK). Without this, embassy's async transfers on I2C1 wait forever
 * for an interrupt that was already latched (found by this harness).
 */
function levelInterrupts(i2c) {
  const RX_FULL = 1 << 2;
  const TX_EMPTY = 1 << 4;
  const fix = () => {
    if (i2c.rxFIFO.itemCount > i2c.rxThreshold) i2c.intRaw |= RX_FULL;
    else i2c.intRaw &= ~RX_FULL;
    if (i2c.txFIFO.itemCount <= i2c.txThreshold) i2c.intRaw |= TX_EMPTY;
    else i2c.intRaw &= ~TX_EMPTY;
    i2c.checkInterrupts();
  };
  const write = i2c.writeUint32.bind(i2c);
  i2c.writeUint32 = (offset, value) => {
    if (offset === 0x30) i2c.intEnable = value & 0x1fff; // IC_INTR_MASK
    else write(offset, value);
  };
  for (const name of ['readUint32', 'writeUint32', 'completeStart', 'completeConnect', 'completeWrite', 'completeRead', 'completeStop']) {
    const f = i2c[name].bind(i2c);
    i2c[name] = (...args) => {
      const r = f(...args);
      fix();
      return r;
    };
  }
}

export class ReferenceBoard {
  /**
   * @param elf path of the firmware's release ELF
   * @param strapClosed the address strap (GP22 to GND: 0x43)
   * @param contact whether the two MPR121s are fitted
   */
  constructor(elf, { strapClosed = false, contact = true } = {}) {
    this.image = flashImage(elf);
    this.flash = new Uint8Array(FLASH_SIZE).fill(0xff);
    for (const [offset, bytes] of this.image.chunks) this.flash.set(bytes, offset);
    this.strapClosed = strapClosed;
    this.contact = contact;
    this._occupancy = 0n; // bit i: a piece on square i (a1 = 0)
    this.changes = []; // ns of every sensor change, for the interrupt line's latency
    this.ranks = new Mpr121();
    this.files = new Mpr121();
    this.base = 0; // ns before the last reset
    this.resets = 0;
    this.intEdges = []; // [ns, asserted]
    this.holds = []; // SCL holds in cycles, one per byte the controller had to wait for
    this.rxHolds = [];
    this.slowHolds = []; // holds over 200 cycles, with where the core was when the request came
    this.stuckResets = [];
    this.cycles = 0;
    this.instructions = 0;
    this.powerOn();
  }

  /** ns since the harness started. */
  get now() {
    return this.base + this.sim.clock.nanos;
  }

  /** A fresh chip (RUN pulled low and let go): every block at its reset value, the flash kept. */
  powerOn() {
    if (this.sim) {
      this.base = this.now;
      this.resets++;
    }
    const sim = new Simulator();
    const mcu = sim.rp2040;
    this.sim = sim;
    this.mcu = mcu;
    mcu.logger = { debug() {}, info() {}, warn() {}, error() {} };
    // Our own stand-in for the boot ROM (./rom.js); loading it resets the chip, which fills flash with 0xff.
    loadRomStandIn(mcu, () => this.flashChip);
    mcu.flash.set(this.flash.subarray(0, mcu.flash.length));
    this.flash = mcu.flash; // the chip's flash is the board's from now on
    mcu.peripherals[0x14000] = new XipCtrl(mcu, 'XIP_CTRL');
    this.target = new I2cTarget(mcu, () => this.now);
    mcu.peripherals[0x40044] = this.target;
    this.wireResets(mcu);
    this.wireSysReset(mcu);
    this.wireFlash(mcu);
    this.wireChain(mcu);
    this.wireContact(mcu);
    // The strap: GP22 to GND when closed, else the internal pull-up.
    mcu.gpio[PIN.STRAP].setInputValue(!this.strapClosed);
    // The interrupt line: low only while the pin drives low (open-drain).
    const pin = mcu.gpio[PIN.INT];
    this.intLow = false;
    pin.addListener(() => this.sampleInt());
    // As the boot ROM's flash boot does: boot2 at the start of flash, run
    // from XIP (rp2040js maps flash there directly), then the vector table.
    mcu.core.PC = 0x10000000;
  }

  sampleInt() {
    const pin = this.mcu.gpio[PIN.INT];
    const low = pin.outputEnable && !pin.outputValue;
    if (low !== this.intLow) {
      this.intLow = low;
      this.intEdges.push([this.now, low]);
    }
  }

  /** RESETS: a block reset of I2C0 (the firmware's 25 ms stuck-transaction reset) returns the target model to its reset state. */
  wireResets(mcu) {
    const resets = mcu.peripherals[0x4000c];
    const write = resets.writeUint32.bind(resets);
    resets.writeUint32 = (offset, value) => {
      if (offset === 0 && value & (1 << 3) && this.sim) {
        if (this.target.addressed !== null || this.busBusy) {
          this.stuckResets.push({ at: this.now, after: this.abandonedAt !== undefined ? this.now - this.abandonedAt : null });
          this.abandonedAt = undefined;
        }
        this.target.resetBlock();
        if (this.onTargetReset) this.onTargetReset();
      }
      write(offset, value);
    };
  }

  /** AIRCR.SYSRESETREQ (the firmware's SOFT_RESET): the whole chip resets, as on silicon. */
  wireSysReset(mcu) {
    const ppb = mcu.ppb;
    const write = ppb.writeUint32.bind(ppb);
    ppb.writeUint32 = (offset, value) => {
      if (offset === 0xd0c && (value >>> 16) === 0x05fa && value & 4) {
        this.pendingReset = true;
        return;
      }
      write(offset, value);
    };
  }

  /** Placeholder replaced by ./flash.js's model of the QSPI flash chip. */
  wireFlash(mcu) {
    if (this.flashModel) this.flashModel(mcu, this);
  }

  /** Eight 74HC165s: SH/LD low latches the 64 inputs; each SPI byte clocks one chip's H..A out of QH, MSB first. */
  wireChain(mcu) {
    const load = mcu.gpio[PIN.LOAD];
    this.latched = [];
    this.shiftIndex = 0;
    let wasHigh = true;
    load.addListener(() => {
      const high = load.outputValue;
      if (!high && wasHigh) {
        this.latched = [];
        for (let k = 0n; k < 8n; k++) this.latched.push(Number(~(this.occupancy >> (8n * k)) & 0xffn));
        this.shiftIndex = 0;
        this.scans = (this.scans ?? 0) + 1;
      }
      wasHigh = high;
    });
    const spi = mcu.spi[0];
    const alarm = this.sim.clock.createAlarm(() => {
      // The ninth byte is SER of chip 7, tied to 3.3 V; past it, ones again.
      const byte = this.shiftIndex < 8 ? this.latched[this.shiftIndex] ?? 0xff : 0xff;
      this.shiftIndex++;
      spi.completeTransmit(byte);
    });
    spi.onTransmit = () => {
      const scr = (spi.control0 >> 8) & 0xff;
      const hz = mcu.clkPeri / (spi.clockDivisor * (1 + scr));
      alarm.schedule((8 * 1e9) / hz);
    };
  }

  /** Two MPR121s on I2C1 (0x5A ranks, 0x5B files), each transfer taking its bus time. */
  wireContact(mcu) {
    const i2c = mcu.i2c[1];
    levelInterrupts(i2c);
    let device = null;
    let pending = null;
    const alarm = this.sim.clock.createAlarm(() => {
      const f = pending;
      pending = null;
      f();
    });
    const bitNs = () => ((i2c.sclHighPeriod + i2c.sclLowPeriod) * 1e9) / mcu.clkPeri;
    const later = (bits, f) => {
      pending = f;
      alarm.schedule(bits * bitNs());
    };
    i2c.onStart = () => later(1, () => i2c.completeStart());
    i2c.onConnect = (address) => {
      device = !this.contact ? null : address === 0x5a ? this.ranks : address === 0x5b ? this.files : null;
      if (device) device.start();
      later(9, () => i2c.completeConnect(device !== null));
    };
    i2c.onWriteByte = (b) => {
      if (device) device.write(b);
      later(9, () => i2c.completeWrite(device !== null));
    };
    i2c.onReadByte = () => {
      const v = device ? device.read() : 0xff;
      later(9, () => i2c.completeRead(v));
    };
    i2c.onStop = () => later(1, () => i2c.completeStop());
  }

  get occupancy() {
    return this._occupancy;
  }

  set occupancy(value) {
    if (value !== this._occupancy) this.changes.push(this.now);
    this._occupancy = value;
  }

  /** A hand on squares: rank and file electrodes of each touched square. */
  setTouches(squares) {
    let ranks = 0;
    let files = 0;
    for (const sq of squares) {
      ranks |= 1 << (sq >> 3);
      files |= 1 << (sq & 7);
    }
    this.ranks.electrodes = ranks;
    this.files.electrodes = files;
  }

  /** Runs the chip until `until()` or the time `endNs`, whichever first. Returns true if `until()` held. */
  run(endNs, until = () => false) {
    const { sim } = this;
    for (;;) {
      if (until()) return true;
      if (this.pendingReset) {
        this.pendingReset = false;
        this.powerOn();
        continue;
      }
      const now = this.now;
      if (now >= endNs) return false;
      const core = this.sim.rp2040.core;
      if (core.waiting) {
        const next = sim.clock.nextAlarm ? sim.clock.nanosToNextAlarm : Infinity;
        const step = Math.max(1, Math.min(next, endNs - now));
        sim.clock.tick(step);
        this.cycles += step / 8;
      } else {
        const c = core.executeInstruction();
        this.instructions++;
        this.cycles += c;
        sim.clock.tick(c * 8);
      }
    }
  }
}
