// The bridge to tocada: one request a line on standard input, one answer a
// line on standard output. tocada's `ProtocolBoard` driver reads the board
// through it (examples/rp2040_board.rs in tocada's tree). Every answer
// starts with the emulated time in ns and the interrupt line (1: low,
// asserted): `<ns> <int> <status> [data]`.
//
//   run <ns> [int]        run until that time (with `int`: or the line's next falling edge)
//   occ <hex>             the 64 sensors: bit i set = a piece on square i (a1 = 0)
//   touch <sq,sq,..|->    the squares a hand touches (the MPR121s' electrodes)
//   i2c <addr> <op>..     a transaction at 100 kHz: ops `w<hex>` and `r<n>`,
//                         joined by repeated STARTs → `ok <hex>` | `nack` | `stuck`
//   abandon <addr> <reg> <n>  a read left open after n bytes (no STOP): § 9.1 rule 4
//   reset                 RUN pulled low: the chip restarts, its flash kept
//   stats                 → `stats <json>`
//
// Usage: node server.js <elf> [--strap-closed] [--no-contact]

import { createInterface } from 'node:readline';
import { ReferenceBoard } from './board.js';
import { wireFlashChip } from './flash.js';
import { Pi } from './pi.js';
import { summary } from './stats.js';

const args = process.argv.slice(2);
const elf = args.find((a) => !a.startsWith('--'));
if (!elf) {
  console.error('usage: node server.js <elf> [--strap-closed] [--no-contact]');
  process.exit(2);
}
ReferenceBoard.prototype.flashModel = wireFlashChip;
const board = new ReferenceBoard(elf, {
  strapClosed: args.includes('--strap-closed'),
  contact: !args.includes('--no-contact'),
});
const pi = new Pi(board);

const trace = process.env.TOCADA_EMULATOR_TRACE ? (l) => process.stderr.write(l) : null;
const out = (status) => {
  const line = `${Math.round(board.now)} ${board.intLow ? 1 : 0} ${status}\n`;
  if (trace) trace(line);
  process.stdout.write(line);
};

function handle(line) {
  const [cmd, ...rest] = line.trim().split(/\s+/);
  switch (cmd) {
    case 'run': {
      const end = Number(rest[0]);
      // `int`: the Pi's edge-triggered GPIO wakes the loop on a falling edge.
      const edges = board.intEdges.length;
      if (rest[1] === 'int') board.run(end, () => board.intLow && board.intEdges.length > edges);
      else board.run(end);
      return out('ok');
    }
    case 'occ':
      board.occupancy = BigInt('0x' + rest[0]);
      return out('ok');
    case 'touch':
      board.setTouches(rest[0] === '-' || !rest[0] ? [] : rest[0].split(',').map(Number));
      return out('ok');
    case 'i2c': {
      const address = Number(rest[0]);
      const ops = rest.slice(1).map((op) =>
        op[0] === 'w'
          ? { write: (op.slice(1).match(/../g) ?? []).map((h) => parseInt(h, 16)) }
          : { read: Number(op.slice(1)) },
      );
      const r = pi.transaction(address, ops);
      if (!r.ok) return out(r.why);
      return out('ok ' + Buffer.from(r.bytes).toString('hex'));
    }
    case 'abandon':
      return out(pi.abandon(Number(rest[0]), Number(rest[1]), Number(rest[2])) ? 'ok' : 'nack');
    case 'reset':
      board.powerOn();
      return out('ok');
    case 'stats':
      return out('stats ' + JSON.stringify(summary(board, pi)));
    case 'quit':
      process.exit(0);
      break;
    default:
      return out('error unknown-request');
  }
}

const rl = createInterface({ input: process.stdin });
rl.on('line', (line) => {
  if (trace) trace('> ' + line + '\n');
  try {
    handle(line);
  } catch (e) {
    out('error ' + String(e.message).replace(/\s+/g, '_'));
  }
});
rl.on('close', () => process.exit(0));
