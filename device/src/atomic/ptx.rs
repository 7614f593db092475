//! The PTX backend: every `asm!` of the atomics layer, and the one table per instruction kind
//! that picks its `.sem` and `.scope`.
//!
//! `asm!` templates must be string literals, so the order and the scope cannot be spliced in
//! at run time. Instead `with_load_sem!`, `with_store_sem!` and `with_rmw_sem!` match on the
//! pair (`.sem` of the order, `S::KIND`), both constants at nearly every call site, and list
//! every pair PTX allows for that instruction, each arm naming its literal qualifiers. Every
//! wrapper is `#[inline(always)]`, so all arms but one fold away and the kernel contains
//! exactly one instruction. An order known only at run time never puts an invalid form
//! (`ld.release`, `red.acquire`) into the PTX: `crate::order` has already panicked for it.
//! The instruction each pair emits, for every operation and type, is spelled out in
//! `device/PTX_TABLE.md`.
//!
//! The leaf macros (`ptx_ld!` ... `ptx_red!`) hold the `asm!`; they take the scope, then the
//! `.sem`, then their operands. No `asm!` here carries `nomem`/`readonly`/`pure`: each one is
//! a compiler barrier, so the compiler cannot move ordinary accesses across an acquire or
//! release (the hardware ordering comes from the instruction itself).
//!
//! The seq_cst arms are the PTX memory model's mapping (Lustig et al., ASPLOS 2019), as
//! libcu++'s on sm_70+: `fence.sc.<scope>` then the acquire form (loads and read-modify-writes)
//! or the relaxed form (stores and `red`).

/// Expands `$leaf!("<scope>", args..)` for the scope marker `$S` (fences, and instructions
/// with no `.sem`).
macro_rules! with_scope {
    ($S:ty; $leaf:ident!($($a:tt)*)) => {
        match <$S as $crate::scope::Scope>::KIND {
            $crate::scope::ScopeKind::Cta => $leaf!("cta", $($a)*),
            #[cfg(target_feature = "sm_90")]
            $crate::scope::ScopeKind::Cluster => $leaf!("cluster", $($a)*),
            // No `Cluster` marker exists below sm_90, so no `Scope` has this kind.
            #[cfg(not(target_feature = "sm_90"))]
            $crate::scope::ScopeKind::Cluster => core::hint::unreachable_unchecked(),
            $crate::scope::ScopeKind::Gpu => $leaf!("gpu", $($a)*),
            $crate::scope::ScopeKind::Sys => $leaf!("sys", $($a)*),
        }
    };
}
pub(crate) use with_scope;

/// Loads: `ld.relaxed`, `ld.acquire`; SeqCst is `fence.sc` + `ld.acquire`.
macro_rules! with_load_sem {
    ($S:ty, $sem:expr; $leaf:ident!($($a:tt)*)) => {
        match ($sem, <$S as $crate::scope::Scope>::KIND) {
            ($crate::order::Sem::Relaxed, $crate::scope::ScopeKind::Cta) => $leaf!("cta", "relaxed", $($a)*),
            #[cfg(target_feature = "sm_90")]
            ($crate::order::Sem::Relaxed, $crate::scope::ScopeKind::Cluster) => $leaf!("cluster", "relaxed", $($a)*),
            ($crate::order::Sem::Relaxed, $crate::scope::ScopeKind::Gpu) => $leaf!("gpu", "relaxed", $($a)*),
            ($crate::order::Sem::Relaxed, $crate::scope::ScopeKind::Sys) => $leaf!("sys", "relaxed", $($a)*),
            ($crate::order::Sem::Acquire, $crate::scope::ScopeKind::Cta) => $leaf!("cta", "acquire", $($a)*),
            #[cfg(target_feature = "sm_90")]
            ($crate::order::Sem::Acquire, $crate::scope::ScopeKind::Cluster) => $leaf!("cluster", "acquire", $($a)*),
            ($crate::order::Sem::Acquire, $crate::scope::ScopeKind::Gpu) => $leaf!("gpu", "acquire", $($a)*),
            ($crate::order::Sem::Acquire, $crate::scope::ScopeKind::Sys) => $leaf!("sys", "acquire", $($a)*),
            ($crate::order::Sem::SeqCst, $crate::scope::ScopeKind::Cta) => {
                $crate::fence::fence_sc::<$S>();
                $leaf!("cta", "acquire", $($a)*)
            },
            #[cfg(target_feature = "sm_90")]
            ($crate::order::Sem::SeqCst, $crate::scope::ScopeKind::Cluster) => {
                $crate::fence::fence_sc::<$S>();
                $leaf!("cluster", "acquire", $($a)*)
            },
            ($crate::order::Sem::SeqCst, $crate::scope::ScopeKind::Gpu) => {
                $crate::fence::fence_sc::<$S>();
                $leaf!("gpu", "acquire", $($a)*)
            },
            ($crate::order::Sem::SeqCst, $crate::scope::ScopeKind::Sys) => {
                $crate::fence::fence_sc::<$S>();
                $leaf!("sys", "acquire", $($a)*)
            },
            // No `Cluster` marker exists below sm_90, so no `Scope` has this kind.
            #[cfg(not(target_feature = "sm_90"))]
            (_, $crate::scope::ScopeKind::Cluster) => core::hint::unreachable_unchecked(),
            // `crate::order` has already panicked for the orders this instruction refuses.
            _ => core::hint::unreachable_unchecked(),
        }
    };
}
pub(crate) use with_load_sem;

/// Stores and `red`: the `.relaxed` and `.release` forms; SeqCst is `fence.sc` + the `.relaxed`
/// form.
macro_rules! with_store_sem {
    ($S:ty, $sem:expr; $leaf:ident!($($a:tt)*)) => {
        match ($sem, <$S as $crate::scope::Scope>::KIND) {
            ($crate::order::Sem::Relaxed, $crate::scope::ScopeKind::Cta) => $leaf!("cta", "relaxed", $($a)*),
            #[cfg(target_feature = "sm_90")]
            ($crate::order::Sem::Relaxed, $crate::scope::ScopeKind::Cluster) => $leaf!("cluster", "relaxed", $($a)*),
            ($crate::order::Sem::Relaxed, $crate::scope::ScopeKind::Gpu) => $leaf!("gpu", "relaxed", $($a)*),
            ($crate::order::Sem::Relaxed, $crate::scope::ScopeKind::Sys) => $leaf!("sys", "relaxed", $($a)*),
            ($crate::order::Sem::Release, $crate::scope::ScopeKind::Cta) => $leaf!("cta", "release", $($a)*),
            #[cfg(target_feature = "sm_90")]
            ($crate::order::Sem::Release, $crate::scope::ScopeKind::Cluster) => $leaf!("cluster", "release", $($a)*),
            ($crate::order::Sem::Release, $crate::scope::ScopeKind::Gpu) => $leaf!("gpu", "release", $($a)*),
            ($crate::order::Sem::Release, $crate::scope::ScopeKind::Sys) => $leaf!("sys", "release", $($a)*),
            ($crate::order::Sem::SeqCst, $crate::scope::ScopeKind::Cta) => {
                $crate::fence::fence_sc::<$S>();
                $leaf!("cta", "relaxed", $($a)*)
            },
            #[cfg(target_feature = "sm_90")]
            ($crate::order::Sem::SeqCst, $crate::scope::ScopeKind::Cluster) => {
                $crate::fence::fence_sc::<$S>();
                $leaf!("cluster", "relaxed", $($a)*)
            },
            ($crate::order::Sem::SeqCst, $crate::scope::ScopeKind::Gpu) => {
                $crate::fence::fence_sc::<$S>();
                $leaf!("gpu", "relaxed", $($a)*)
            },
            ($crate::order::Sem::SeqCst, $crate::scope::ScopeKind::Sys) => {
                $crate::fence::fence_sc::<$S>();
                $leaf!("sys", "relaxed", $($a)*)
            },
            // No `Cluster` marker exists below sm_90, so no `Scope` has this kind.
            #[cfg(not(target_feature = "sm_90"))]
            (_, $crate::scope::ScopeKind::Cluster) => core::hint::unreachable_unchecked(),
            // `crate::order` has already panicked for the orders this instruction refuses.
            _ => core::hint::unreachable_unchecked(),
        }
    };
}
pub(crate) use with_store_sem;

/// Read-modify-writes: every `.sem`; SeqCst is `fence.sc` + `atom.acquire` (the fence is also
/// the release half: `fence.sc` followed by a strong write is a release pattern).
macro_rules! with_rmw_sem {
    ($S:ty, $sem:expr; $leaf:ident!($($a:tt)*)) => {
        match ($sem, <$S as $crate::scope::Scope>::KIND) {
            ($crate::order::Sem::Relaxed, $crate::scope::ScopeKind::Cta) => $leaf!("cta", "relaxed", $($a)*),
            #[cfg(target_feature = "sm_90")]
            ($crate::order::Sem::Relaxed, $crate::scope::ScopeKind::Cluster) => $leaf!("cluster", "relaxed", $($a)*),
            ($crate::order::Sem::Relaxed, $crate::scope::ScopeKind::Gpu) => $leaf!("gpu", "relaxed", $($a)*),
            ($crate::order::Sem::Relaxed, $crate::scope::ScopeKind::Sys) => $leaf!("sys", "relaxed", $($a)*),
            ($crate::order::Sem::Acquire, $crate::scope::ScopeKind::Cta) => $leaf!("cta", "acquire", $($a)*),
            #[cfg(target_feature = "sm_90")]
            ($crate::order::Sem::Acquire, $crate::scope::ScopeKind::Cluster) => $leaf!("cluster", "acquire", $($a)*),
            ($crate::order::Sem::Acquire, $crate::scope::ScopeKind::Gpu) => $leaf!("gpu", "acquire", $($a)*),
            ($crate::order::Sem::Acquire, $crate::scope::ScopeKind::Sys) => $leaf!("sys", "acquire", $($a)*),
            ($crate::order::Sem::Release, $crate::scope::ScopeKind::Cta) => $leaf!("cta", "release", $($a)*),
            #[cfg(target_feature = "sm_90")]
            ($crate::order::Sem::Release, $crate::scope::ScopeKind::Cluster) => $leaf!("cluster", "release", $($a)*),
            ($crate::order::Sem::Release, $crate::scope::ScopeKind::Gpu) => $leaf!("gpu", "release", $($a)*),
            ($crate::order::Sem::Release, $crate::scope::ScopeKind::Sys) => $leaf!("sys", "release", $($a)*),
            ($crate::order::Sem::AcqRel, $crate::scope::ScopeKind::Cta) => $leaf!("cta", "acq_rel", $($a)*),
            #[cfg(target_feature = "sm_90")]
            ($crate::order::Sem::AcqRel, $crate::scope::ScopeKind::Cluster) => $leaf!("cluster", "acq_rel", $($a)*),
            ($crate::order::Sem::AcqRel, $crate::scope::ScopeKind::Gpu) => $leaf!("gpu", "acq_rel", $($a)*),
            ($crate::order::Sem::AcqRel, $crate::scope::ScopeKind::Sys) => $leaf!("sys", "acq_rel", $($a)*),
            ($crate::order::Sem::SeqCst, $crate::scope::ScopeKind::Cta) => {
                $crate::fence::fence_sc::<$S>();
                $leaf!("cta", "acquire", $($a)*)
            },
            #[cfg(target_feature = "sm_90")]
            ($crate::order::Sem::SeqCst, $crate::scope::ScopeKind::Cluster) => {
                $crate::fence::fence_sc::<$S>();
                $leaf!("cluster", "acquire", $($a)*)
            },
            ($crate::order::Sem::SeqCst, $crate::scope::ScopeKind::Gpu) => {
                $crate::fence::fence_sc::<$S>();
                $leaf!("gpu", "acquire", $($a)*)
            },
            ($crate::order::Sem::SeqCst, $crate::scope::ScopeKind::Sys) => {
                $crate::fence::fence_sc::<$S>();
                $leaf!("sys", "acquire", $($a)*)
            },
            // No `Cluster` marker exists below sm_90, so no `Scope` has this kind.
            #[cfg(not(target_feature = "sm_90"))]
            (_, $crate::scope::ScopeKind::Cluster) => core::hint::unreachable_unchecked(),
        }
    };
}
pub(crate) use with_rmw_sem;

/// `ld.<sem>.<scope>.<ty> r, [p];`
macro_rules! ptx_ld {
    ($scope:literal, $sem:literal, $ty:literal, $reg:ident, $rt:ty, $p:expr) => {{
        let r: $rt;
        core::arch::asm!(
            concat!("ld.", $sem, ".", $scope, ".", $ty, " {r}, [{p}];"),
            p = in(reg64) $p, r = out($reg) r, options(nostack));
        r
    }};
}
pub(crate) use ptx_ld;

/// `st.<sem>.<scope>.<ty> [p], v;`
macro_rules! ptx_st {
    ($scope:literal, $sem:literal, $ty:literal, $reg:ident, $p:expr, $v:expr) => {
        core::arch::asm!(
            concat!("st.", $sem, ".", $scope, ".", $ty, " [{p}], {v};"),
            p = in(reg64) $p, v = in($reg) $v, options(nostack))
    };
}
pub(crate) use ptx_st;

/// `atom.<sem>.<scope>.<op>.<ty> r, [p], v;`
macro_rules! ptx_atom {
    ($scope:literal, $sem:literal, $op:literal, $ty:literal, $reg:ident, $rt:ty, $p:expr, $v:expr) => {{
        let r: $rt;
        core::arch::asm!(
            concat!("atom.", $sem, ".", $scope, ".", $op, ".", $ty, " {r}, [{p}], {v};"),
            p = in(reg64) $p, v = in($reg) $v, r = out($reg) r, options(nostack));
        r
    }};
}
pub(crate) use ptx_atom;

/// `atom.<sem>.<scope>.cas.<ty> r, [p], current, new;`
macro_rules! ptx_cas {
    ($scope:literal, $sem:literal, $ty:literal, $reg:ident, $rt:ty, $p:expr, $c:expr, $n:expr) => {{
        let r: $rt;
        core::arch::asm!(
            concat!("atom.", $sem, ".", $scope, ".cas.", $ty, " {r}, [{p}], {c}, {n};"),
            p = in(reg64) $p, c = in($reg) $c, n = in($reg) $n, r = out($reg) r,
            options(nostack));
        r
    }};
}
pub(crate) use ptx_cas;

/// `red.<sem>.<scope>.<op>.<ty> [p], v;` (no result register: the update is fire-and-forget).
macro_rules! ptx_red {
    ($scope:literal, $sem:literal, $op:literal, $ty:literal, $reg:ident, $p:expr, $v:expr) => {
        core::arch::asm!(
            concat!("red.", $sem, ".", $scope, ".", $op, ".", $ty, " [{p}], {v};"),
            p = in(reg64) $p, v = in($reg) $v, options(nostack))
    };
}
pub(crate) use ptx_red;
