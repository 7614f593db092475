//! The warp's special registers, votes, matches and shuffles on the GPU: one instruction each.
//! Every collective here is not `nomem`: it waits for the other lanes of its mask, so it must
//! not move across memory accesses.

/// `mov.u32 %laneid`.
#[inline(always)]
pub(crate) fn lane() -> u32 {
    let l: u32;
    // SAFETY: reads a special register.
    unsafe { core::arch::asm!("mov.u32 {l}, %laneid;", l = out(reg32) l, options(nostack)) };
    l
}

/// `activemask.b32`.
#[inline(always)]
pub(crate) fn active_mask() -> u32 {
    let m: u32;
    // SAFETY: reads the active mask; not `nomem`, so it is not moved across memory accesses.
    unsafe { core::arch::asm!("activemask.b32 {m};", m = out(reg32) m, options(nostack)) };
    m
}

/// `mov.u32 d, %lanemask_*`: a special register that every lane reads for itself.
macro_rules! lanemask {
    ($($name:ident: $insn:literal;)*) => {$(
        #[inline(always)]
        pub(crate) fn $name() -> u32 {
            let m: u32;
            // SAFETY: reads a special register.
            unsafe { core::arch::asm!($insn, m = out(reg32) m, options(nomem, nostack, pure)) };
            m
        }
    )*};
}
lanemask! {
    lanemask_lt: "mov.u32 {m}, %lanemask_lt;";
    lanemask_le: "mov.u32 {m}, %lanemask_le;";
    lanemask_eq: "mov.u32 {m}, %lanemask_eq;";
    lanemask_ge: "mov.u32 {m}, %lanemask_ge;";
    lanemask_gt: "mov.u32 {m}, %lanemask_gt;";
}

/// `bar.warp.sync`.
#[inline(always)]
pub(crate) fn sync(mask: u32) {
    // SAFETY: every lane in `mask` calls it (the caller's contract).
    unsafe { core::arch::asm!("bar.warp.sync {m};", m = in(reg32) mask, options(nostack)) };
}

/// `match.any.sync.b64`.
#[inline(always)]
pub(crate) fn match_any(mask: u32, value: u64) -> u32 {
    let peers: u32;
    // SAFETY: every lane in `mask` executes it (the caller's contract).
    unsafe {
        core::arch::asm!(
            "match.any.sync.b64 {p}, {v}, {m};",
            p = out(reg32) peers, v = in(reg64) value, m = in(reg32) mask,
            options(nostack)
        )
    };
    peers
}

/// `match.any.sync.b32`.
#[inline(always)]
pub(crate) fn match_any_u32(mask: u32, value: u32) -> u32 {
    let peers: u32;
    // SAFETY: every lane in `mask` executes it (the caller's contract).
    unsafe {
        core::arch::asm!(
            "match.any.sync.b32 {p}, {v}, {m};",
            p = out(reg32) peers, v = in(reg32) value, m = in(reg32) mask,
            options(nostack)
        )
    };
    peers
}

/// `match.all.sync.b64 d|p`: `Some(d)` when `p`.
#[inline(always)]
pub(crate) fn match_all(mask: u32, value: u64) -> Option<u32> {
    let (lanes, all): (u32, u32);
    // SAFETY: every lane in `mask` executes it (the caller's contract).
    unsafe {
        core::arch::asm!(
            "{{ .reg .pred %p; match.all.sync.b64 {d}|%p, {v}, {m}; selp.u32 {a}, 1, 0, %p; }}",
            d = out(reg32) lanes, a = out(reg32) all, v = in(reg64) value, m = in(reg32) mask,
            options(nostack)
        )
    };
    (all != 0).then_some(lanes)
}

/// `match.all.sync.b32 d|p`: `Some(d)` when `p`.
#[inline(always)]
pub(crate) fn match_all_u32(mask: u32, value: u32) -> Option<u32> {
    let (lanes, all): (u32, u32);
    // SAFETY: every lane in `mask` executes it (the caller's contract).
    unsafe {
        core::arch::asm!(
            "{{ .reg .pred %p; match.all.sync.b32 {d}|%p, {v}, {m}; selp.u32 {a}, 1, 0, %p; }}",
            d = out(reg32) lanes, a = out(reg32) all, v = in(reg32) value, m = in(reg32) mask,
            options(nostack)
        )
    };
    (all != 0).then_some(lanes)
}

/// `vote.sync.ballot.b32`.
#[inline(always)]
pub(crate) fn ballot(mask: u32, pred: bool) -> u32 {
    let lanes: u32;
    // SAFETY: every lane in `mask` executes it (the caller's contract).
    unsafe {
        core::arch::asm!(
            "{{ .reg .pred %p; setp.ne.u32 %p, {v}, 0; vote.sync.ballot.b32 {d}, %p, {m}; }}",
            d = out(reg32) lanes, v = in(reg32) pred as u32, m = in(reg32) mask,
            options(nostack)
        )
    };
    lanes
}

/// `vote.sync.{any,all,uni}.pred`, each a predicate in and a predicate out.
macro_rules! vote {
    ($($name:ident: $insn:literal;)*) => {$(
        #[inline(always)]
        pub(crate) fn $name(mask: u32, pred: bool) -> bool {
            let r: u32;
            // SAFETY: every lane in `mask` executes it (the caller's contract).
            unsafe {
                core::arch::asm!(
                    $insn,
                    d = out(reg32) r, v = in(reg32) pred as u32, m = in(reg32) mask,
                    options(nostack)
                )
            };
            r != 0
        }
    )*};
}
vote! {
    any: "{{ .reg .pred %p; setp.ne.u32 %p, {v}, 0; vote.sync.any.pred %p, %p, {m}; selp.u32 {d}, 1, 0, %p; }}";
    all: "{{ .reg .pred %p; setp.ne.u32 %p, {v}, 0; vote.sync.all.pred %p, %p, {m}; selp.u32 {d}, 1, 0, %p; }}";
    uni: "{{ .reg .pred %p; setp.ne.u32 %p, {v}, 0; vote.sync.uni.pred %p, %p, {m}; selp.u32 {d}, 1, 0, %p; }}";
}

/// `shfl.sync.{idx,up,down,bfly}.b32` of one word (width 32: `c` is 0x1f, or 0 for `up`).
macro_rules! shfl {
    ($($name:ident: $insn:literal;)*) => {$(
        #[inline(always)]
        pub(crate) fn $name(mask: u32, word: u32, b: u32) -> u32 {
            let d: u32;
            // SAFETY: every lane in `mask` executes it (the caller's contract).
            unsafe {
                core::arch::asm!(
                    $insn,
                    d = out(reg32) d, a = in(reg32) word, b = in(reg32) b, m = in(reg32) mask,
                    options(nostack)
                )
            };
            d
        }
    )*};
}
shfl! {
    shfl_idx: "shfl.sync.idx.b32 {d}, {a}, {b}, 0x1f, {m};";
    shfl_up: "shfl.sync.up.b32 {d}, {a}, {b}, 0, {m};";
    shfl_down: "shfl.sync.down.b32 {d}, {a}, {b}, 0x1f, {m};";
    shfl_bfly: "shfl.sync.bfly.b32 {d}, {a}, {b}, 0x1f, {m};";
}

/// `elect.sync _|p` (sm_90).
#[cfg(target_feature = "sm_90")]
#[inline(always)]
pub(crate) fn elect_one(mask: u32) -> bool {
    let r: u32;
    // SAFETY: every lane in `mask` executes it (the caller's contract).
    unsafe {
        core::arch::asm!(
            "{{ .reg .pred %p; elect.sync _|%p, {m}; selp.u32 {d}, 1, 0, %p; }}",
            d = out(reg32) r, m = in(reg32) mask,
            options(nostack)
        )
    };
    r != 0
}
