//! Kernels of the stuck-GPU misuse cases (tests/src/cases/misuse_stuck.rs,
//! misuse_streams.rs, misuse_waits.rs, misuse_storms.rs): a kernel that spins until a word is set
//! (in device memory nobody writes, it never ends; in mapped memory the host ends it), and the
//! kernel that sets it from another stream.

use ptx_sync::{Atomic, Ordering, Sys};

/// Spins until the u32 at `word` is not zero (a `.sys` acquire load, so a write by the host
/// through mapped memory is seen), then sets `*done = 1`. One thread is enough; every thread
/// of a larger launch does the same.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn misuse_spin_until_set(word: *mut u32, done: *mut u32) {
    let w = Atomic::<u32, Sys>::from_ptr(word);
    while w.load(Ordering::Acquire) == 0 {
        core::hint::spin_loop();
    }
    Atomic::<u32, Sys>::from_ptr(done).store(1, Ordering::Release);
}

/// Sets the u32 at `word` to 1 (release, `.sys`): what ends [`misuse_spin_until_set`] from
/// another stream.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn misuse_set_word(word: *mut u32) {
    Atomic::<u32, Sys>::from_ptr(word).store(1, Ordering::Release);
}
