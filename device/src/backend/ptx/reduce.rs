//! The warp reductions' one-instruction forms: `redux.sync` (PTX ISA 7.0, sm_80) on the 32-bit
//! integers, where the architecture has it.

/// One `redux.sync` (sm_80+), its instruction spelled out at the call.
#[cfg(target_feature = "sm_80")]
macro_rules! redux {
    ($insn:literal, $mask:expr, $value:expr) => {{
        let d: u32;
        // SAFETY: every lane in `mask` executes it (the caller's contract). Not `nomem`: it
        // waits for the other lanes, so it must not move across memory accesses.
        unsafe {
            core::arch::asm!(
                $insn,
                d = out(reg32) d, v = in(reg32) $value, m = in(reg32) $mask,
                options(nostack)
            )
        };
        d
    }};
}
#[cfg(target_feature = "sm_80")]
pub(crate) use redux;

/// A reduction method of a 32-bit integer type `$t` (in an `impl` of its trait) that is the
/// one `redux.sync` instruction `$insn` on sm_80+; below sm_80, nothing: the trait's default,
/// the shuffle tree, stays.
macro_rules! redux_method {
    ($name:ident, $t:ty, $insn:literal) => {
        #[cfg(target_feature = "sm_80")]
        #[inline(always)]
        fn $name(mask: u32, value: Self) -> Self {
            $crate::backend::reduce::redux!($insn, mask, value as u32) as $t
        }
    };
}
pub(crate) use redux_method;
