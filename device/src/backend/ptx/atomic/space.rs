//! The state-space leaves: one `asm!` per (instruction, `.sem`, `.scope`, space, type),
//! called by the `with_*_sem!` macros, which prepend the `.sem` and the scope. `$areg` is the
//! address's register class: `reg32` for the shared windows, `reg64` for `.global`. Also the
//! `.shared::cluster` address conversions (`backend::global` has the `.global` ones).

/// `ld.<sem>.<scope>.<space>.<ty> r, [a];`
macro_rules! space_ld {
    ($scope:literal, $sem:literal, $space:literal, $ty:literal, $reg:ident, $rt:ty, $areg:ident, $a:expr) => {{
        let r: $rt;
        core::arch::asm!(
            concat!("ld.", $sem, ".", $scope, ".", $space, ".", $ty, " {r}, [{a}];"),
            a = in($areg) $a, r = out($reg) r, options(nostack));
        r
    }};
}
pub(crate) use space_ld;

/// `st.<sem>.<scope>.<space>.<ty> [a], v;`
macro_rules! space_st {
    ($scope:literal, $sem:literal, $space:literal, $ty:literal, $reg:ident, $areg:ident, $a:expr, $v:expr) => {
        core::arch::asm!(
            concat!("st.", $sem, ".", $scope, ".", $space, ".", $ty, " [{a}], {v};"),
            a = in($areg) $a, v = in($reg) $v, options(nostack))
    };
}
pub(crate) use space_st;

/// `atom.<sem>.<scope>.<space>.<op>.<ty> r, [a], v;`
macro_rules! space_atom {
    ($scope:literal, $sem:literal, $space:literal, $op:literal, $ty:literal, $reg:ident, $rt:ty, $areg:ident, $a:expr, $v:expr) => {{
        let r: $rt;
        core::arch::asm!(
            concat!("atom.", $sem, ".", $scope, ".", $space, ".", $op, ".", $ty, " {r}, [{a}], {v};"),
            a = in($areg) $a, v = in($reg) $v, r = out($reg) r, options(nostack));
        r
    }};
}
pub(crate) use space_atom;

/// `atom.<sem>.<scope>.<space>.cas.<ty> r, [a], current, new;`
macro_rules! space_cas {
    ($scope:literal, $sem:literal, $space:literal, $ty:literal, $reg:ident, $rt:ty, $areg:ident, $a:expr, $c:expr, $n:expr) => {{
        let r: $rt;
        core::arch::asm!(
            concat!("atom.", $sem, ".", $scope, ".", $space, ".cas.", $ty, " {r}, [{a}], {c}, {n};"),
            a = in($areg) $a, c = in($reg) $c, n = in($reg) $n, r = out($reg) r,
            options(nostack));
        r
    }};
}
pub(crate) use space_cas;

/// `red.<sem>.<scope>.<space>.<op>.<ty> [a], v;`
macro_rules! space_red {
    ($scope:literal, $sem:literal, $space:literal, $op:literal, $ty:literal, $reg:ident, $areg:ident, $a:expr, $v:expr) => {
        core::arch::asm!(
            concat!("red.", $sem, ".", $scope, ".", $space, ".", $op, ".", $ty, " [{a}], {v};"),
            a = in($areg) $a, v = in($reg) $v, options(nostack))
    };
}
pub(crate) use space_red;

/// `-val` of a float, `wrapping_neg` of an integer: what a handle's `fetch_sub` adds.
macro_rules! space_neg {
    (f32, $v:expr) => {
        -$v
    };
    (f64, $v:expr) => {
        -$v
    };
    ($t:ident, $v:expr) => {
        $v.wrapping_neg()
    };
}
pub(crate) use space_neg;

/// `mapa.shared::cluster.u32 d, a, rank;`: a `.shared::cluster` address of block `rank`.
#[cfg(target_feature = "sm_90")]
#[inline(always)]
pub(crate) fn map_shared_cluster(a: u32, rank: u32) -> u32 {
    let d: u32;
    // SAFETY: computes an address; reads no memory.
    unsafe {
        core::arch::asm!("mapa.shared::cluster.u32 {d}, {a}, {r};", d = out(reg32) d,
                         a = in(reg32) a, r = in(reg32) rank,
                         options(nostack, nomem, pure))
    };
    d
}

/// `cvta.shared::cluster.u64`: the generic address of a `.shared::cluster` address.
#[cfg(target_feature = "sm_90")]
#[inline(always)]
pub(crate) fn shared_cluster_to_generic(a: u32) -> u64 {
    let p: u64;
    // SAFETY: computes an address; reads no memory.
    unsafe {
        core::arch::asm!("cvt.u64.u32 {p}, {a};\n\tcvta.shared::cluster.u64 {p}, {p};",
                         p = out(reg64) p, a = in(reg32) a,
                         options(nostack, nomem, pure))
    };
    p
}
