// A stand-in for the RP2040's boot ROM, our own code written from the RP2040
// datasheet, section 2.8 ("Bootrom"); no Raspberry Pi ROM image is used or
// needed. The harness starts the chip at boot2 in flash (./board.js), so the
// ROM is reached only through what the firmware looks up in it:
//
// - the header (2.8.3): 'M', 'u', 0x01 and the version byte at 0x10..0x13,
//   and the 16-bit pointers to the function table (0x14), the data table
//   (0x16) and rom_table_lookup (0x18); each table is (code, address) pairs
//   of half-words ending in a zero code;
// - rom_table_lookup(table, code), which walks the given table in ROM;
// - the functions embassy-rp 0.10 looks up (rom_data/rp2040.rs, flash.rs):
//   IF connect_internal_flash, EX flash_exit_xip, RE flash_range_erase,
//   RP flash_range_program, FC flash_flush_cache, CX flash_enter_cmd_xip,
//   C4 memcpy44, and the small ones beside them (P3 R3 L3 T3 MS S4 MC);
// - the data codes CR (copyright string) and GR (git revision).
//
// Each function is a Thumb `BKPT #n; BX LR` in the image; the breakpoint
// runs it here in JS on the chip's registers and memory, and the BX LR
// returns to the caller. What the real ROM does that this does not: the
// boot sequence itself (flash boot with boot2's CRC check, USB boot,
// watchdog and RAM boot), the soft float and double tables, the
// interrupt-driven helpers and the debug trampolines; the flash routines
// here change the flash's bytes at once through ./flash.js's chip model
// instead of driving the SSI and IO_QSPI command by command, so their
// own cycles are not emulated (on silicon they take milliseconds; the
// firmware's BOOT_COUNT write runs them once per boot, before it serves the Pi).
// A function or data code not listed here fails loudly at lookup.

const ROM_BYTES = 16 * 1024;
const IDLE = 0x0e0; // `B .`: where the reset and fault vectors point
const TABLES = 0x100;
const STUBS = 0x200;
const STRINGS = 0x400;
const STACK_TOP = 0x20042000;

const code = (s) => s.charCodeAt(0) | (s.charCodeAt(1) << 8);
const name = (c) => String.fromCharCode(c & 0xff, c >> 8);

/** Builds the image and installs the functions on `mcu`; `flash()` gives ./flash.js's chip model. */
export function loadRomStandIn(mcu, flash) {
  const image = new Uint32Array(ROM_BYTES / 4);
  const bytes = new Uint8Array(image.buffer);
  const u16 = (at, v) => {
    bytes[at] = v & 0xff;
    bytes[at + 1] = (v >> 8) & 0xff;
  };
  const u32 = (at, v) => {
    u16(at, v & 0xffff);
    u16(at + 2, v >>> 16);
  };

  const r = mcu.core.registers;
  const read8 = (a) => mcu.readUint8(a >>> 0);
  const write8 = (a, v) => mcu.writeUint8(a >>> 0, v & 0xff);
  const copy = () => {
    const [dest, src, n] = [r[0], r[1], r[2]];
    for (let i = 0; i < n; i++) write8(dest + i, read8(src + i));
    return dest;
  };
  const fill = () => {
    const [ptr, c, n] = [r[0], r[1], r[2]];
    for (let i = 0; i < n; i++) write8(ptr + i, c);
    return ptr;
  };
  const nothing = () => r[0]; // r0 is the caller's to lose; these return void

  // Index 0 is rom_table_lookup; the rest are the function table's, in order.
  const functions = [
    ['lookup', () => lookup(r[0], r[1])],
    ['P3', () => popcount(r[0])],
    ['R3', () => reverse(r[0])],
    ['L3', () => (r[0] === 0 ? 32 : Math.clz32(r[0]))],
    ['T3', () => (r[0] === 0 ? 32 : 31 - Math.clz32(r[0] & -r[0]))],
    ['MS', fill],
    ['S4', fill],
    ['MC', copy],
    ['C4', copy],
    // rp2040js maps the flash's bytes straight at XIP, with no cache and no
    // SSI state to switch: connecting, leaving and re-entering XIP change nothing.
    ['IF', nothing],
    ['EX', nothing],
    ['FC', nothing],
    ['CX', nothing],
    // flash_range_erase(addr, count, block_size, block_cmd): whole 4 KiB sectors.
    ['RE', () => (flash().eraseRange(r[0], r[1]), r[0])],
    // flash_range_program(addr, data, count): bits go only from 1 to 0.
    ['RP', () => {
      const [addr, data, count] = [r[0], r[1], r[2]];
      const src = new Uint8Array(count);
      for (let i = 0; i < count; i++) src[i] = read8(data + i);
      flash().programRange(addr, src);
      return r[0];
    }],
  ];

  u32(0x00, STACK_TOP);
  for (const vector of [0x04, 0x08, 0x0c]) u32(vector, IDLE | 1);
  u16(IDLE, 0xe7fe);
  bytes.set([0x4d, 0x75, 0x01, 0x02], 0x10); // 'M' 'u' 0x01, version 2 (as B1)

  let at = TABLES;
  u16(0x14, at);
  functions.forEach(([c], i) => {
    const stub = STUBS + 4 * i;
    u16(stub, 0xbe00 | i); // BKPT #i
    u16(stub + 2, 0x4770); // BX LR
    if (i === 0) {
      u16(0x18, stub | 1);
      return;
    }
    u16(at, code(c));
    u16(at + 2, stub | 1);
    at += 4;
  });
  u16(at, 0);
  at += 4;

  const copyright = 'tocada harness: boot ROM stand-in (rom.js)\0';
  bytes.set(Buffer.from(copyright, 'latin1'), STRINGS);
  const gitRevision = STRINGS + ((copyright.length + 3) & ~3);
  u32(gitRevision, 0);
  u16(0x16, at);
  u16(at, code('CR'));
  u16(at + 2, STRINGS);
  u16(at + 4, code('GR'));
  u16(at + 6, gitRevision);
  u16(at + 8, 0);

  /** rom_table_lookup: the table's address for `c`, walking the table as the chip sees it. */
  function lookup(table, c) {
    const fnTable = table === (read8(0x14) | (read8(0x15) << 8));
    for (let p = table; ; p += 4) {
      const k = read8(p) | (read8(p + 1) << 8);
      if (k === 0) break;
      if (k === c) return read8(p + 2) | (read8(p + 3) << 8);
    }
    throw new Error(`boot ROM stand-in (rom.js): ${fnTable ? 'function' : 'data'} '${name(c)}' is not modelled`);
  }

  mcu.loadBootrom(image); // resets the core, and rp2040js fills flash with 0xff
  const firmwareBreak = mcu.onBreak;
  mcu.onBreak = (imm) => {
    const at = (mcu.core.PC - 2) >>> 0; // the core has stepped past the BKPT
    if (at < ROM_BYTES && at === STUBS + 4 * imm && imm < functions.length) {
      r[0] = functions[imm][1]() >>> 0;
    } else {
      firmwareBreak(imm);
    }
  };
  return image;
}

function popcount(v) {
  let n = 0;
  for (; v; v &= v - 1) n++;
  return n;
}

function reverse(v) {
  let out = 0;
  for (let i = 0; i < 32; i++) out = (out << 1) | ((v >>> i) & 1);
  return out >>> 0;
}
