//! The warp-level facts the primitives need: which lane this is, which lanes run together,
//! which of them name the same object, and a warp barrier.
//!
//! On the host every thread is a warp of one, except inside `emulation::launch` (feature
//! `warp-emulation`), where `std` threads play the lanes of real warps so that warp-level code
//! can fail in `cargo test`.

#[cfg(all(feature = "warp-emulation", not(target_arch = "nvptx64"), not(loom)))]
pub mod emulation;

/// The host side of this module: emulated lanes, or a warp of one.
#[cfg(not(target_arch = "nvptx64"))]
mod host {
    #[cfg(all(feature = "warp-emulation", not(loom)))]
    pub(super) use super::emulation::{active_mask, lane, match_any, sync};

    #[cfg(any(not(feature = "warp-emulation"), loom))]
    pub(super) fn lane() -> u32 {
        0
    }
    #[cfg(any(not(feature = "warp-emulation"), loom))]
    pub(super) fn active_mask() -> u32 {
        1
    }
    #[cfg(any(not(feature = "warp-emulation"), loom))]
    pub(super) fn sync(_mask: u32) {}
    #[cfg(any(not(feature = "warp-emulation"), loom))]
    pub(super) fn match_any(_mask: u32, _value: u64) -> u32 {
        1
    }
}

/// This thread's lane (0..32).
#[inline(always)]
pub fn lane() -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let l: u32;
        // SAFETY: reads a special register.
        unsafe { core::arch::asm!("mov.u32 {l}, %laneid;", l = out(reg32) l, options(nostack)) };
        l
    }
    #[cfg(not(target_arch = "nvptx64"))]
    host::lane()
}

/// The lanes of this warp executing this instruction together (`activemask.b32`).
#[inline(always)]
pub fn active_mask() -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let m: u32;
        // SAFETY: reads the active mask; not `nomem`, so it is not moved across memory accesses.
        unsafe { core::arch::asm!("activemask.b32 {m};", m = out(reg32) m, options(nostack)) };
        m
    }
    #[cfg(not(target_arch = "nvptx64"))]
    host::active_mask()
}

/// Waits until every lane in `mask` has arrived, and orders their memory accesses
/// (`bar.warp.sync`). On sm_70+ the lanes may reach it through different instructions.
/// Every lane in `mask`, the caller included, must call it with the same mask.
#[inline(always)]
pub fn sync(mask: u32) {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: every lane in `mask` calls it (the caller's contract).
    unsafe {
        core::arch::asm!("bar.warp.sync {m};", m = in(reg32) mask, options(nostack))
    };
    #[cfg(not(target_arch = "nvptx64"))]
    host::sync(mask)
}

/// The lanes of `mask` whose `value` equals this lane's (`match.any.sync.b64`, sm_70+). Every
/// lane in `mask`, the caller included, must call it with the same mask.
#[inline(always)]
pub fn match_any(mask: u32, value: u64) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let peers: u32;
        // SAFETY: every lane in `mask` executes it (the caller's contract). Not `nomem`: it
        // waits for the other lanes, so it must not move across memory accesses.
        unsafe {
            core::arch::asm!(
                "match.any.sync.b64 {p}, {v}, {m};",
                p = out(reg32) peers, v = in(reg64) value, m = in(reg32) mask,
                options(nostack)
            )
        };
        peers
    }
    #[cfg(not(target_arch = "nvptx64"))]
    host::match_any(mask, value)
}

/// The lanes running this call together that name the same `object` (by address), this lane
/// included: `activemask.b32`, then `match.any.sync.b64` on the address. The primitives
/// aggregate over this group, never over the whole active mask, so lanes of one warp that use
/// different objects (a lock per bucket, a latch per tile) each act on their own object.
/// A lane running alone (one thread per block arriving at a grid-wide barrier or latch) is its
/// own group and skips the `match.any`.
#[inline(always)]
pub fn peers<T: ?Sized>(object: &T) -> u32 {
    let active = active_mask();
    if active & active.wrapping_sub(1) == 0 {
        return active;
    }
    let address = object as *const T as *const () as usize as u64;
    match_any(active, address)
}
