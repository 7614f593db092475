//! The clock on the GPU: `%globaltimer`, one timer for the whole GPU.

/// The clock's reading, in nanoseconds: the global timer.
#[inline(always)]
pub(crate) fn now() -> u64 {
    global_timer_ns()
}

/// `mov.u64 %rd, %globaltimer;`. Neither `pure` nor `nomem`: each call reads the timer again,
/// and the polls around it stay on their side of the read.
#[inline(always)]
pub(crate) fn global_timer_ns() -> u64 {
    let t: u64;
    // SAFETY: reads a special register.
    unsafe { core::arch::asm!("mov.u64 {t}, %globaltimer;", t = out(reg64) t, options(nostack)) };
    t
}
