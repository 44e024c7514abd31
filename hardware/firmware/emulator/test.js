// `npm test`: the three reference games played on the exact release ELF,
// read by tocada's own driver (examples/rp2040_board.rs in tocada's tree,
// which starts ./server.js). Prints last
// `scl_hold_cycles worst=N p99=N reads=N moves=M/T`; exits non-zero if a
// lift or place is lost, a CRC is bad, BOOT_COUNT missed a reset, or an
// SCL hold was over 2 µs (250 cycles at 125 MHz).
//
// The ELF: $TOCADA_PICO_ELF, else the firmware's release build
// (`cd ../pico && cargo build --release`).

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../../..');
const targetDir = process.env.CARGO_TARGET_DIR
  ? resolve(process.env.CARGO_TARGET_DIR)
  : join(root, 'hardware/firmware/pico/target');
const elf = process.env.TOCADA_PICO_ELF ?? join(targetDir, 'thumbv6m-none-eabi/release/tocada-pico');
if (!existsSync(elf)) {
  console.error(`npm test: no firmware at ${elf}: build it with (cd hardware/firmware/pico && cargo build --release)`);
  process.exit(2);
}
const run = spawnSync('cargo', ['run', '--locked', '--release', '--example', 'rp2040_board'], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, TOCADA_PICO_ELF: elf, TOCADA_EMULATOR: join(here, 'server.js') },
});
process.exit(run.status ?? 1);
