//! The state-space leaves: one `asm!` per (instruction, `.sem`, `.scope`, space, type),
//! called by the `with_*_sem!` macros, which prepend the `.sem` and the scope. `$areg` is the
//! address's register class: `reg32` for the shared windows, `reg64` for `.global`. Also the
//! address conversions between the generic window and the state-space windows.

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
