//! The GPU bodies of the atomics: every `asm!` of the atomics layer, and the one table that
//! picks each instruction's `.sem` and `.scope`. `on_target!` brings this module's macros into
//! scope in each GPU body, so `crate::atomic` names the table and the leaves without naming
//! the target. The 128-bit (`wide`), vector (`vector`) and state-space (`space`) leaves are
//! submodules; the 8/16-bit and half-float operations are the scalar leaves here with their
//! `.b8` / `.b16` / `.noftz` types, plus the word loops of `small`.
//!
//! `asm!` templates must be string literals, so the order and the scope cannot be spliced in
//! at run time. Instead `with_sem!` matches on the pair (`.sem` of the order, `S::KIND`), both
//! constants at nearly every call site, with one arm per pair PTX allows for the instruction
//! kind (its `load`, `store` and `rmw` rows, which `with_load_sem!`, `with_store_sem!` and
//! `with_rmw_sem!` name), each arm naming its literal qualifiers. Every wrapper is
//! `#[inline(always)]`, so all arms but one fold away and the kernel contains exactly one
//! instruction. An order known only at run time never puts an invalid form (`ld.release`,
//! `red.acquire`) into the PTX: `crate::order` has already panicked for it.
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

pub(crate) mod space;
pub(crate) use space::{space_atom, space_cas, space_ld, space_neg, space_red, space_st};
// `.b128` and vector `atom`/`red` are sm_90 instructions.
#[cfg(target_feature = "sm_90")]
pub(crate) mod vector;
#[cfg(target_feature = "sm_90")]
pub(crate) use vector::{ptx_atom_v2, ptx_atom_v4, ptx_red_v2, ptx_red_v4};
#[cfg(target_feature = "sm_90")]
pub(crate) mod wide;
#[cfg(target_feature = "sm_90")]
pub(crate) use wide::{cas128, exch128, ld128, st128};

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

/// The one table from (order, scope) to the `.sem` and `.scope` qualifiers: one row per
/// instruction kind. Each row names the `.sem` of every order the instruction has a form for,
/// the form SeqCst uses after its `fence.sc`, and the orders PTX gives it no form for.
///
/// - Loads: `ld` has no `.release` (a release orders the accesses before a write, and a load
///   writes nothing); SeqCst takes the acquire form.
/// - Stores and `red`: no `.acquire` (nothing is read to acquire from); SeqCst takes the
///   relaxed form, the fence before it being the release half.
/// - Read-modify-writes: every `.sem`; SeqCst takes `atom.acquire` (the fence is also the
///   release half: `fence.sc` followed by a strong write is a release pattern).
macro_rules! with_sem {
    (load, $S:ty, $sem:expr; $leaf:ident! $args:tt) => {
        $crate::backend::atomic::with_sem!(@stamp $S, $sem, $leaf $args;
            forms [Relaxed "relaxed", Acquire "acquire"], seq_cst "acquire", refused [Release, AcqRel])
    };
    (store, $S:ty, $sem:expr; $leaf:ident! $args:tt) => {
        $crate::backend::atomic::with_sem!(@stamp $S, $sem, $leaf $args;
            forms [Relaxed "relaxed", Release "release"], seq_cst "relaxed", refused [Acquire, AcqRel])
    };
    (rmw, $S:ty, $sem:expr; $leaf:ident! $args:tt) => {
        $crate::backend::atomic::with_sem!(@stamp $S, $sem, $leaf $args;
            forms [Relaxed "relaxed", Acquire "acquire", Release "release", AcqRel "acq_rel"],
            seq_cst "acquire", refused [])
    };
    // The refused orders share one catch-all arm: an arm each would hand LLVM another
    // `switch` for an order known only at run time, and so another branch layout.
    (@stamp $S:ty, $sem:expr, $leaf:ident $args:tt;
        forms [$($o:ident $q:literal),*], seq_cst $sc:literal, refused [$($r:ident),+]) => {
        $crate::backend::atomic::with_sem!(@match $S, $sem, $leaf $args;
            forms [$($o $q),*], seq_cst $sc;
            // `crate::order` has already panicked for the orders this instruction refuses.
            _ => core::hint::unreachable_unchecked(),)
    };
    (@stamp $S:ty, $sem:expr, $leaf:ident $args:tt;
        forms [$($o:ident $q:literal),*], seq_cst $sc:literal, refused []) => {
        $crate::backend::atomic::with_sem!(@match $S, $sem, $leaf $args; forms [$($o $q),*], seq_cst $sc;)
    };
    // One arm per (order, scope) pair, then `$rest`. The leaf's operands travel as one token
    // tree, `$args`, because a `$(..)*` list cannot be repeated inside the repetition over the
    // orders.
    (@match $S:ty, $sem:expr, $leaf:ident $args:tt;
        forms [$($o:ident $q:literal),*], seq_cst $sc:literal; $($rest:tt)*) => {
        match ($sem, <$S as $crate::scope::Scope>::KIND) {
            $(
                ($crate::order::Sem::$o, $crate::scope::ScopeKind::Cta) => $crate::backend::atomic::with_sem!(@leaf $leaf "cta" $q $args),
                #[cfg(target_feature = "sm_90")]
                ($crate::order::Sem::$o, $crate::scope::ScopeKind::Cluster) => $crate::backend::atomic::with_sem!(@leaf $leaf "cluster" $q $args),
                ($crate::order::Sem::$o, $crate::scope::ScopeKind::Gpu) => $crate::backend::atomic::with_sem!(@leaf $leaf "gpu" $q $args),
                ($crate::order::Sem::$o, $crate::scope::ScopeKind::Sys) => $crate::backend::atomic::with_sem!(@leaf $leaf "sys" $q $args),
            )*
            ($crate::order::Sem::SeqCst, $crate::scope::ScopeKind::Cta) => {
                $crate::fence::fence_sc::<$S>();
                $crate::backend::atomic::with_sem!(@leaf $leaf "cta" $sc $args)
            },
            #[cfg(target_feature = "sm_90")]
            ($crate::order::Sem::SeqCst, $crate::scope::ScopeKind::Cluster) => {
                $crate::fence::fence_sc::<$S>();
                $crate::backend::atomic::with_sem!(@leaf $leaf "cluster" $sc $args)
            },
            ($crate::order::Sem::SeqCst, $crate::scope::ScopeKind::Gpu) => {
                $crate::fence::fence_sc::<$S>();
                $crate::backend::atomic::with_sem!(@leaf $leaf "gpu" $sc $args)
            },
            ($crate::order::Sem::SeqCst, $crate::scope::ScopeKind::Sys) => {
                $crate::fence::fence_sc::<$S>();
                $crate::backend::atomic::with_sem!(@leaf $leaf "sys" $sc $args)
            },
            // No `Cluster` marker exists below sm_90, so no `Scope` has this kind.
            #[cfg(not(target_feature = "sm_90"))]
            (_, $crate::scope::ScopeKind::Cluster) => core::hint::unreachable_unchecked(),
            $($rest)*
        }
    };
    (@leaf $leaf:ident $scope:literal $q:literal ($($a:tt)*)) => {
        $leaf!($scope, $q, $($a)*)
    };
}
pub(crate) use with_sem;

/// Loads: `with_sem!`'s `load` row.
macro_rules! with_load_sem {
    ($S:ty, $sem:expr; $leaf:ident! $args:tt) => {
        $crate::backend::atomic::with_sem!(load, $S, $sem; $leaf! $args)
    };
}
pub(crate) use with_load_sem;

/// Stores and `red`: `with_sem!`'s `store` row.
macro_rules! with_store_sem {
    ($S:ty, $sem:expr; $leaf:ident! $args:tt) => {
        $crate::backend::atomic::with_sem!(store, $S, $sem; $leaf! $args)
    };
}
pub(crate) use with_store_sem;

/// Read-modify-writes: `with_sem!`'s `rmw` row.
macro_rules! with_rmw_sem {
    ($S:ty, $sem:expr; $leaf:ident! $args:tt) => {
        $crate::backend::atomic::with_sem!(rmw, $S, $sem; $leaf! $args)
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
