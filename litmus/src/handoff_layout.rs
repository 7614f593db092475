//! What the primitive-shaped tests' host side (`gpu/handoff.rs`) and their kernels
//! (`litmus/kernels/src/handoff.rs`, which includes this file with `#[path]`) must agree on:
//! the buffers' layout and the `Sys` MP outcome bins. `no_std` and dependency-free, so one
//! source serves both builds.

/// u32 words in a 128-byte line: words that must not share a line are this far apart.
pub const LINE: usize = 32;
/// Protected words per critical section / message, each on its own line, so a stale line
/// cannot hide behind a fresh one: every word is checked separately.
pub const WORDS: usize = 4;
/// Slots each thread reads after a latch or barrier: the same thread's slot in the next block
/// and in the block half the grid away (so most pairs sit on different SMs).
pub const NEIGHBOURS: u32 = 2;
/// u32 words from one location of the `Sys` MP test to the next: 64 bytes, one x86 cache line
/// (two 32-byte PCIe read sectors), so no two instances share a host line.
pub const SYS_STRIDE: usize = 16;
/// The `Sys` MP outcome bins (see [`mp_bin`]).
pub const MP_BINS: usize = 6;

/// The `Sys` MP outcome bin of a reader that saw `[y, x]`: `2 * y + x` for `[y, x]` in
/// `{0, 1}`, 4 for any other value (a harness error: only 0 and 1 are ever stored), 5 for
/// `[1, 1]` read by a reader that `waited` (polled `y` at least twice: it was waiting when the
/// writer's flag arrived, so the two sides raced, which is what makes the test worth running).
#[inline(always)]
pub fn mp_bin(y: u32, x: u32, waited: bool) -> usize {
    if y > 1 || x > 1 {
        4
    } else if y == 1 && x == 1 && waited {
        5
    } else {
        (2 * y + x) as usize
    }
}
