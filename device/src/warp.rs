//! The few warp-level facts the primitives need. On the host every thread is a warp of one.

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
    0
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
    1
}

/// Waits until every lane in `mask` has arrived, and orders their memory accesses
/// (`bar.warp.sync`). On sm_70+ the lanes may reach it through different instructions.
#[inline(always)]
pub fn sync(mask: u32) {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: every lane in `mask` calls it (the caller's contract).
    unsafe {
        core::arch::asm!("bar.warp.sync {m};", m = in(reg32) mask, options(nostack))
    };
    #[cfg(not(target_arch = "nvptx64"))]
    let _ = mask;
}
