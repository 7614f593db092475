//! The `mbarrier` instructions of `BlockBarrier` (GPU only): each takes the generic address of
//! the barrier's `u64` state in this block's shared memory and converts it to the `.shared`
//! window inside the asm (`cvta.to.shared.u64`), so the PTX names one register per call.
//!
//! # Safety
//! Every function: `state` is the generic address of an `mbarrier` object in this block's
//! shared memory (initialized, except for [`init`]). None is `nomem`: each orders memory (an
//! arrival releases, a completed wait acquires) or must stay between the accesses around it.

/// `mbarrier.init.shared.b64 [s], count;`
#[inline(always)]
pub(crate) unsafe fn init(state: *mut u64, count: u32) {
    // SAFETY: the module's contract.
    unsafe {
        core::arch::asm!(
            "{{ .reg .b64 s; cvta.to.shared.u64 s, {p}; mbarrier.init.shared.b64 [s], {n}; }}",
            p = in(reg64) state, n = in(reg32) count, options(nostack))
    }
}

/// `mbarrier.arrive.shared.b64 token, [s];`
#[inline(always)]
pub(crate) unsafe fn arrive(state: *mut u64) -> u64 {
    let t: u64;
    // SAFETY: the module's contract.
    unsafe {
        core::arch::asm!(
            "{{ .reg .b64 s; cvta.to.shared.u64 s, {p}; mbarrier.arrive.shared.b64 {t}, [s]; }}",
            p = in(reg64) state, t = out(reg64) t, options(nostack))
    }
    t
}

/// `mbarrier.arrive.release.cta.shared::cta.b64 token, [s], n;` (sm_90: an arrival with a
/// count).
#[cfg(target_feature = "sm_90")]
#[inline(always)]
pub(crate) unsafe fn arrive_n(state: *mut u64, n: u32) -> u64 {
    let t: u64;
    // SAFETY: the module's contract.
    unsafe {
        core::arch::asm!(
            "{{ .reg .b64 s; cvta.to.shared.u64 s, {p}; \
             mbarrier.arrive.release.cta.shared::cta.b64 {t}, [s], {n}; }}",
            p = in(reg64) state, n = in(reg32) n, t = out(reg64) t,
            options(nostack))
    }
    t
}

/// `mbarrier.arrive.noComplete.shared.b64 _, [s], n;`: `n` arrivals that cannot complete the
/// phase (the caller's own arrival is still to come).
#[cfg(not(target_feature = "sm_90"))]
#[inline(always)]
pub(crate) unsafe fn arrive_no_complete(state: *mut u64, n: u32) {
    // SAFETY: the module's contract; `.noComplete` requires that the phase does not complete
    // here, which the caller's pending arrival guarantees.
    unsafe {
        core::arch::asm!(
            "{{ .reg .b64 s, t; cvta.to.shared.u64 s, {p}; \
             mbarrier.arrive.noComplete.shared.b64 t, [s], {n}; }}",
            p = in(reg64) state, n = in(reg32) n, options(nostack))
    }
}

/// `mbarrier.arrive_drop.shared.b64 _, [s];`
#[inline(always)]
pub(crate) unsafe fn arrive_drop(state: *mut u64) {
    // SAFETY: the module's contract.
    unsafe {
        core::arch::asm!(
            "{{ .reg .b64 s, t; cvta.to.shared.u64 s, {p}; mbarrier.arrive_drop.shared.b64 t, [s]; }}",
            p = in(reg64) state, options(nostack))
    }
}

/// `mbarrier.test_wait.shared.b64 p, [s], token;`: whether the phase completed; never waits.
#[inline(always)]
pub(crate) unsafe fn test_wait(state: *mut u64, token: u64) -> bool {
    let done: u32;
    // SAFETY: the module's contract.
    unsafe {
        core::arch::asm!(
            "{{ .reg .b64 s; .reg .pred p; cvta.to.shared.u64 s, {p}; \
             mbarrier.test_wait.shared.b64 p, [s], {t}; selp.u32 {d}, 1, 0, p; }}",
            p = in(reg64) state, t = in(reg64) token, d = out(reg32) done,
            options(nostack))
    }
    done != 0
}

/// `mbarrier.try_wait.shared.b64` in a loop until the phase of `token` completes (sm_90).
#[cfg(target_feature = "sm_90")]
#[inline(always)]
pub(crate) unsafe fn wait(state: *mut u64, token: u64) {
    // The label sits inside the asm's own `{ }` block, where PTX scopes it: copies of this
    // asm in one kernel do not clash (checked with ptxas).
    #[allow(named_asm_labels)]
    // SAFETY: the module's contract.
    unsafe {
        core::arch::asm!(
            "{{ .reg .b64 s; .reg .pred p; cvta.to.shared.u64 s, {p}; \
             ptx_sync_bb_wait: mbarrier.try_wait.shared.b64 p, [s], {t}; \
             @!p bra ptx_sync_bb_wait; }}",
            p = in(reg64) state, t = in(reg64) token, options(nostack))
    }
}

/// `mbarrier.test_wait.parity.shared.b64 p, [s], parity;`
#[inline(always)]
pub(crate) unsafe fn test_wait_parity(state: *mut u64, parity: bool) -> bool {
    let done: u32;
    // SAFETY: the module's contract.
    unsafe {
        core::arch::asm!(
            "{{ .reg .b64 s; .reg .pred p; cvta.to.shared.u64 s, {p}; \
             mbarrier.test_wait.parity.shared.b64 p, [s], {q}; selp.u32 {d}, 1, 0, p; }}",
            p = in(reg64) state, q = in(reg32) parity as u32, d = out(reg32) done,
            options(nostack))
    }
    done != 0
}

/// `mbarrier.try_wait.shared.b64 p, [s], token(, hint);`: suspends up to `hint` ns (or the
/// system's limit for `None`) and says whether the phase completed (sm_90).
#[cfg(target_feature = "sm_90")]
#[inline(always)]
pub(crate) unsafe fn try_wait(state: *mut u64, token: u64, hint: Option<u32>) -> bool {
    let done: u32;
    // SAFETY: the module's contract.
    unsafe {
        match hint {
            Some(ns) => core::arch::asm!(
                "{{ .reg .b64 s; .reg .pred p; cvta.to.shared.u64 s, {p}; \
                 mbarrier.try_wait.shared.b64 p, [s], {t}, {h}; selp.u32 {d}, 1, 0, p; }}",
                p = in(reg64) state, t = in(reg64) token, h = in(reg32) ns,
                d = out(reg32) done, options(nostack)),
            None => core::arch::asm!(
                "{{ .reg .b64 s; .reg .pred p; cvta.to.shared.u64 s, {p}; \
                 mbarrier.try_wait.shared.b64 p, [s], {t}; selp.u32 {d}, 1, 0, p; }}",
                p = in(reg64) state, t = in(reg64) token,
                d = out(reg32) done, options(nostack)),
        }
    }
    done != 0
}

/// `mbarrier.try_wait.parity.shared.b64 p, [s], parity(, hint);` (sm_90).
#[cfg(target_feature = "sm_90")]
#[inline(always)]
pub(crate) unsafe fn try_wait_parity(state: *mut u64, parity: bool, hint: Option<u32>) -> bool {
    let done: u32;
    // SAFETY: the module's contract.
    unsafe {
        match hint {
            Some(ns) => core::arch::asm!(
                "{{ .reg .b64 s; .reg .pred p; cvta.to.shared.u64 s, {p}; \
                 mbarrier.try_wait.parity.shared.b64 p, [s], {q}, {h}; selp.u32 {d}, 1, 0, p; }}",
                p = in(reg64) state, q = in(reg32) parity as u32, h = in(reg32) ns,
                d = out(reg32) done, options(nostack)),
            None => core::arch::asm!(
                "{{ .reg .b64 s; .reg .pred p; cvta.to.shared.u64 s, {p}; \
                 mbarrier.try_wait.parity.shared.b64 p, [s], {q}; selp.u32 {d}, 1, 0, p; }}",
                p = in(reg64) state, q = in(reg32) parity as u32,
                d = out(reg32) done, options(nostack)),
        }
    }
    done != 0
}

/// `mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [s], bytes;` (sm_90).
#[cfg(target_feature = "sm_90")]
#[inline(always)]
pub(crate) unsafe fn expect_tx(state: *mut u64, bytes: u32) {
    // SAFETY: the module's contract.
    unsafe {
        core::arch::asm!(
            "{{ .reg .b64 s; cvta.to.shared.u64 s, {p}; \
             mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [s], {n}; }}",
            p = in(reg64) state, n = in(reg32) bytes, options(nostack))
    }
}

/// `mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 token, [s], bytes;` (sm_90).
#[cfg(target_feature = "sm_90")]
#[inline(always)]
pub(crate) unsafe fn arrive_expect_tx(state: *mut u64, bytes: u32) -> u64 {
    let t: u64;
    // SAFETY: the module's contract.
    unsafe {
        core::arch::asm!(
            "{{ .reg .b64 s; cvta.to.shared.u64 s, {p}; \
             mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 {t}, [s], {n}; }}",
            p = in(reg64) state, n = in(reg32) bytes, t = out(reg64) t,
            options(nostack))
    }
    t
}

/// `mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [s], bytes;` (sm_90).
#[cfg(target_feature = "sm_90")]
#[inline(always)]
pub(crate) unsafe fn complete_tx(state: *mut u64, bytes: u32) {
    // SAFETY: the module's contract.
    unsafe {
        core::arch::asm!(
            "{{ .reg .b64 s; cvta.to.shared.u64 s, {p}; \
             mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [s], {n}; }}",
            p = in(reg64) state, n = in(reg32) bytes, options(nostack))
    }
}

/// `cvta.to.shared.u64`: the `.shared` address of the state (for the instructions that name
/// the barrier by it: the bulk copies, sm_90).
#[cfg(target_feature = "sm_90")]
#[inline(always)]
pub(crate) fn shared_address(state: *mut u64) -> u32 {
    let a: u64;
    // SAFETY: computes an address; reads no memory.
    unsafe {
        core::arch::asm!("cvta.to.shared.u64 {a}, {p};", a = out(reg64) a,
                         p = in(reg64) state, options(nostack, readonly, pure))
    };
    a as u32
}
