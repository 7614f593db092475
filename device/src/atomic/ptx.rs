//! The PTX backend: one `asm!` per (instruction, `.sem`, `.scope`, type), stamped by macros.
//!
//! `asm!` templates must be string literals, so the scope and `.sem` cannot be spliced in at run
//! time. Instead `with_scope!` matches on `S::KIND` (a constant) and the `with_*_sem!` macros match
//! on the order (a constant at nearly every call site): every wrapper is `#[inline(always)]`,
//! so all arms but one fold away and the kernel contains exactly one instruction.
//! Each `with_*_sem!` lists only the `.sem`s PTX allows for that instruction, so even an order
//! known only at run time never puts an invalid form (`ld.release`, `red.acquire`) into the PTX;
//! the `crate::order` checks have already panicked for such orders.
//!
//! No `asm!` here carries `nomem`/`readonly`/`pure`: each one is a compiler barrier, so the
//! compiler cannot move ordinary accesses across an acquire or release (the hardware ordering
//! comes from the instruction itself).

/// Expands `$leaf!("<scope>", args..)` for the scope marker `$S`.
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

/// Loads: relaxed, acquire; seq_cst = `fence.sc` + `ld.acquire` (PTX model's mapping).
macro_rules! with_load_sem {
    ($S:ty, $sem:expr; $leaf:ident!($($a:tt)*)) => {
        match $sem {
            $crate::order::Sem::Relaxed => with_scope!($S; $leaf!("relaxed", $($a)*)),
            $crate::order::Sem::Acquire => with_scope!($S; $leaf!("acquire", $($a)*)),
            $crate::order::Sem::SeqCst => {
                $crate::fence::fence_sc::<$S>();
                with_scope!($S; $leaf!("acquire", $($a)*))
            }
            _ => core::hint::unreachable_unchecked(),
        }
    };
}

/// Stores and `red`: relaxed, release; seq_cst = `fence.sc` + the `.relaxed` form.
macro_rules! with_store_sem {
    ($S:ty, $sem:expr; $leaf:ident!($($a:tt)*)) => {
        match $sem {
            $crate::order::Sem::Relaxed => with_scope!($S; $leaf!("relaxed", $($a)*)),
            $crate::order::Sem::Release => with_scope!($S; $leaf!("release", $($a)*)),
            $crate::order::Sem::SeqCst => {
                $crate::fence::fence_sc::<$S>();
                with_scope!($S; $leaf!("relaxed", $($a)*))
            }
            _ => core::hint::unreachable_unchecked(),
        }
    };
}

/// Read-modify-writes: every `.sem`; seq_cst = `fence.sc` + `atom.acquire` (the fence is also
/// the release half: `fence.sc` followed by a strong write is a release pattern).
macro_rules! with_rmw_sem {
    ($S:ty, $sem:expr; $leaf:ident!($($a:tt)*)) => {
        match $sem {
            $crate::order::Sem::Relaxed => with_scope!($S; $leaf!("relaxed", $($a)*)),
            $crate::order::Sem::Acquire => with_scope!($S; $leaf!("acquire", $($a)*)),
            $crate::order::Sem::Release => with_scope!($S; $leaf!("release", $($a)*)),
            $crate::order::Sem::AcqRel => with_scope!($S; $leaf!("acq_rel", $($a)*)),
            $crate::order::Sem::SeqCst => {
                $crate::fence::fence_sc::<$S>();
                with_scope!($S; $leaf!("acquire", $($a)*))
            }
        }
    };
}

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

/// `st.<sem>.<scope>.<ty> [p], v;`
macro_rules! ptx_st {
    ($scope:literal, $sem:literal, $ty:literal, $reg:ident, $p:expr, $v:expr) => {
        core::arch::asm!(
            concat!("st.", $sem, ".", $scope, ".", $ty, " [{p}], {v};"),
            p = in(reg64) $p, v = in($reg) $v, options(nostack))
    };
}

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

/// `red.<sem>.<scope>.<op>.<ty> [p], v;` (no result register: the update is fire-and-forget).
macro_rules! ptx_red {
    ($scope:literal, $sem:literal, $op:literal, $ty:literal, $reg:ident, $p:expr, $v:expr) => {
        core::arch::asm!(
            concat!("red.", $sem, ".", $scope, ".", $op, ".", $ty, " [{p}], {v};"),
            p = in(reg64) $p, v = in($reg) $v, options(nostack))
    };
}
