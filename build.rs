//! Link-time settings for tocada's programs.

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        // The relative relocations of a position-independent program in
        // DT_RELR's packed form (binutils >= 2.38, glibc >= 2.36: Debian
        // bookworm, Raspberry Pi OS bookworm) rather than one 24-byte RELA
        // entry each: the dynamic loader reads the table at every start and
        // it stays resident, and for `tocada run` it was 252 KiB of a 6 MiB
        // budget (`docs/src/figures.md`); packed, it is a few KiB. The
        // program stays a PIE, with its address randomised as before. A glibc
        // without DT_RELR refuses such a program by its version tag
        // (GLIBC_ABI_DT_RELR) instead of running it wrongly.
        println!("cargo::rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}
