// The Pico's QSPI flash chip (a Winbond W25Q16JV), as far as the firmware
// reaches it: rp2040js maps the flash's bytes at XIP but has no chip behind
// the SSI's data register, so embassy-rp's unique-ID and JEDEC-ID reads
// would read nothing. This stands in for the chip: commands framed by chip
// select, answered byte for byte, erase and program applied to the same
// bytes XIP reads. The boot ROM's flash_range_erase / flash_range_program
// (which the firmware's BOOT_COUNT calls) are ./rom.js's stand-ins, which
// call eraseRange / programRange here directly.
//
// Chip select: a program driving the chip by hand forces it through
// IO_QSPI's GPIO_QSPI_SS_CTRL (OUTOVER, RP2040 datasheet 2.19.6.2);
// embassy's unique-ID read leaves it to the SSI in EEPROM-read mode
// (CTRLR0.TMOD = 3, 4.10.13), where the command is sent and then
// CTRLR1.NDF + 1 bytes are received.

import { BasePeripheral } from 'rp2040js';

const SSI_CTRLR0 = 0x00;
const SSI_CTRLR1 = 0x04;
const SSI_SSIENR = 0x08;
const SSI_TXFLR = 0x20;
const SSI_RXFLR = 0x24;
const SSI_SR = 0x28;
const SSI_DR0 = 0x60;
const GPIO_QSPI_SS_CTRL = 0x0c;

/** The chip's 64-bit unique ID (any fixed value not 0 or all ones). */
const UNIQUE_ID = [0xe6, 0x60, 0x58, 0x38, 0x83, 0x4a, 0x2c, 0x2d];

class FlashChip {
  constructor(board) {
    this.board = board;
    this.frame = [];
    this.wel = false;
    this.erases = 0;
    this.programs = 0;
  }
  get bytes() {
    return this.board.flash;
  }
  select() {
    this.frame = [];
  }
  /** The byte the chip shifts out while `b` is shifted in. */
  exchange(b) {
    this.frame.push(b);
    return this.answer(this.frame.length - 1);
  }
  /** The byte at position `i` of the current frame's answer. */
  answer(i) {
    const f = this.frame;
    const addr = () => ((f[1] << 16) | (f[2] << 8) | f[3]) & (this.bytes.length - 1);
    switch (f[0]) {
      case 0x05: // read status register 1: never busy, WEL
        return i >= 1 ? (this.wel ? 2 : 0) : 0;
      case 0x03: // read data
        return i >= 4 ? this.bytes[(addr() + i - 4) & (this.bytes.length - 1)] : 0;
      case 0x4b: // read unique ID: 4 dummy bytes, then 8
        return i >= 5 && i < 13 ? UNIQUE_ID[i - 5] : 0;
      case 0x9f: // JEDEC ID
        return [0, 0xef, 0x40, 0x15][i] ?? 0;
      default:
        return 0;
    }
  }
  deselect() {
    const f = this.frame;
    this.frame = [];
    if (f.length === 0) return;
    const addr = ((f[1] << 16) | (f[2] << 8) | f[3]) & (this.bytes.length - 1);
    switch (f[0]) {
      case 0x06:
        this.wel = true;
        return;
      case 0x04:
        this.wel = false;
        return;
      case 0x20: // 4 KiB sector erase
        if (this.wel && f.length >= 4) this.erase(addr, 0x1000);
        this.wel = false;
        return;
      case 0xd8: // 64 KiB block erase
        if (this.wel && f.length >= 4) this.erase(addr, 0x10000);
        this.wel = false;
        return;
      case 0x02: // page program
        if (this.wel && f.length > 4) this.program(addr, f.slice(4));
        this.wel = false;
        return;
    }
  }
  /** One erase command: the `size`-aligned block holding `addr` to 0xff. */
  erase(addr, size) {
    const start = addr & (this.bytes.length - 1) & ~(size - 1);
    this.bytes.fill(0xff, start, start + size);
    this.erases++;
  }
  /** One page program: bits only go from 1 to 0, wrapping in the 256-byte page. */
  program(addr, data) {
    addr &= this.bytes.length - 1;
    for (let i = 0; i < data.length; i++) {
      const a = (addr & ~0xff) | ((addr + i) & 0xff);
      this.bytes[a] &= data[i];
    }
    this.programs++;
  }
  /**
   * The boot ROM's flash_range_erase (RP2040 datasheet 2.8.3.1.3): `count`
   * bytes from `addr` (both whole 4 KiB sectors), by 64 KiB block erases
   * where aligned, else sector erases.
   */
  eraseRange(addr, count) {
    const end = addr + count;
    for (let a = addr & ~0xfff; a < end; ) {
      const size = (a & 0xffff) === 0 && end - a >= 0x10000 ? 0x10000 : 0x1000;
      this.erase(a, size);
      a += size;
    }
  }
  /** The boot ROM's flash_range_program: `data` from `addr`, page by page. */
  programRange(addr, data) {
    for (let i = 0; i < data.length; ) {
      const n = Math.min(0x100 - ((addr + i) & 0xff), data.length - i);
      this.program(addr + i, data.subarray(i, i + n));
      i += n;
    }
  }
}

export function wireFlashChip(mcu, board) {
  const chip = new FlashChip(board);
  board.flashChip = chip;
  const ssi = mcu.peripherals[0x18000];
  const rx = [];
  let forced = false; // CS held low by IO_QSPI's override
  let eeprom = null; // EEPROM-read transfer: answers still to give
  const ssiRead = ssi.readUint32.bind(ssi);
  const ssiWrite = ssi.writeUint32.bind(ssi);
  const tmod = () => (ssiRead(SSI_CTRLR0) >> 8) & 3;
  ssi.readUint32 = (offset) => {
    if (offset >= SSI_DR0 && offset < SSI_DR0 + 0x90) {
      if (rx.length === 0 && eeprom && eeprom.left > 0) {
        rx.push(chip.answer(eeprom.next++));
        eeprom.left--;
        if (eeprom.left === 0) {
          chip.deselect();
          eeprom = null;
        }
      }
      return rx.length ? rx.shift() : 0;
    }
    if (offset === SSI_SR) {
      const pending = rx.length > 0 || (eeprom && eeprom.left > 0);
      return 0x6 | (pending ? 0x8 : 0); // TFE | TFNF | RFNE
    }
    if (offset === SSI_RXFLR) return rx.length + (eeprom ? eeprom.left : 0);
    if (offset === SSI_TXFLR) return 0;
    return ssiRead(offset);
  };
  ssi.writeUint32 = (offset, value) => {
    if (offset >= SSI_DR0 && offset < SSI_DR0 + 0x90) {
      const b = value & 0xff;
      if (forced) {
        rx.push(chip.exchange(b));
      } else if (tmod() === 3) {
        // EEPROM read: the command goes out, NDF + 1 bytes come back.
        if (!eeprom) {
          chip.select();
          eeprom = { next: 0, left: 0 };
        }
        chip.exchange(b);
        eeprom.next = chip.frame.length;
        eeprom.left = ssiRead(SSI_CTRLR1) + 1;
      } else {
        rx.push(chip.exchange(b));
      }
      return;
    }
    if (offset === SSI_SSIENR && (value & 1) === 0) {
      rx.length = 0;
      if (!forced) chip.deselect();
      eeprom = null;
    }
    ssiWrite(offset, value);
  };

  class IoQspi extends BasePeripheral {
    constructor() {
      super(mcu, 'IO_QSPI');
      this.regs = new Map();
    }
    readUint32(offset) {
      return this.regs.get(offset) ?? 0;
    }
    writeUint32(offset, value) {
      this.regs.set(offset, value);
      if (offset === GPIO_QSPI_SS_CTRL) {
        const over = (value >> 8) & 3; // 2: drive low, 3: drive high
        if (over === 2 && !forced) {
          forced = true;
          chip.select();
        } else if (over !== 2 && forced) {
          forced = false;
          chip.deselect();
          rx.length = 0;
        }
      }
    }
  }
  mcu.peripherals[0x40018] = new IoQspi();
}
