//! Kernels that test the harness itself (launch, watchdog).
use crate::global_id;

/// Smoke kernel: out[i] = i.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn smoke_iota(out: *mut u32, n: u32) {
    let i = global_id();
    if i < n {
        *out.add(i as usize) = i;
    }
}

/// Never returns: spins on a flag nobody sets (the watchdog test's deliberately hung kernel).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn harness_hang(flag: *const u32) {
    while ptx_sync::volatile::read_volatile(flag) == 0 {}
}

/// Mapped-memory round trip: `buf` is pinned host memory the host filled; each word becomes
/// `word * 3 + 1` (wrapping), written back through the same device pointer.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn harness_mapped_roundtrip(buf: *mut u32, n: u32) {
    let i = global_id();
    if i < n {
        let w = buf.add(i as usize);
        *w = (*w).wrapping_mul(3).wrapping_add(1);
    }
}
