// The Pico's QSPI flash chip (W25Q16JV), as far as the firmware uses it.
export function wireFlashChip() {}
