// Loads an ELF32 (little-endian, ARM) into the RP2040's flash as the
// programmer would: every PT_LOAD segment at its physical (load) address.
// `.data` is linked to run in RAM but loaded in flash; cortex-m-rt copies it.

import { readFileSync } from 'node:fs';

const PT_LOAD = 1;
export const FLASH_BASE = 0x10000000;

/** The flash image (bytes from FLASH_BASE) of the ELF at `path`. */
export function flashImage(path) {
  const elf = readFileSync(path);
  if (elf.readUInt32BE(0) !== 0x7f454c46 || elf[4] !== 1 || elf[5] !== 1) {
    throw new Error(`${path}: not a 32-bit little-endian ELF`);
  }
  const phoff = elf.readUInt32LE(28);
  const phentsize = elf.readUInt16LE(42);
  const phnum = elf.readUInt16LE(44);
  const chunks = [];
  let end = 0;
  for (let i = 0; i < phnum; i++) {
    const h = phoff + i * phentsize;
    const type = elf.readUInt32LE(h);
    const offset = elf.readUInt32LE(h + 4);
    const paddr = elf.readUInt32LE(h + 12);
    const filesz = elf.readUInt32LE(h + 16);
    if (type !== PT_LOAD || filesz === 0) continue;
    if (paddr < FLASH_BASE || paddr >= FLASH_BASE + 0x1000000) {
      throw new Error(`${path}: a segment loads at 0x${paddr.toString(16)}, outside flash`);
    }
    chunks.push([paddr - FLASH_BASE, elf.subarray(offset, offset + filesz)]);
    end = Math.max(end, paddr - FLASH_BASE + filesz);
  }
  if (chunks.length === 0) throw new Error(`${path}: no loadable segment`);
  return { chunks, end };
}

/** Symbol table lookup: name → address, for the few the harness needs. */
export function symbols(path) {
  const elf = readFileSync(path);
  const shoff = elf.readUInt32LE(32);
  const shentsize = elf.readUInt16LE(46);
  const shnum = elf.readUInt16LE(48);
  const out = new Map();
  for (let i = 0; i < shnum; i++) {
    const h = shoff + i * shentsize;
    if (elf.readUInt32LE(h + 4) !== 2) continue; // SHT_SYMTAB
    const off = elf.readUInt32LE(h + 16);
    const size = elf.readUInt32LE(h + 20);
    const link = elf.readUInt32LE(h + 24);
    const strOff = elf.readUInt32LE(shoff + link * shentsize + 16);
    for (let s = off; s < off + size; s += 16) {
      const nameAt = strOff + elf.readUInt32LE(s);
      const name = elf.toString('latin1', nameAt, elf.indexOf(0, nameAt));
      out.set(name, elf.readUInt32LE(s + 4));
    }
  }
  return out;
}
