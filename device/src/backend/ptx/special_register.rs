//! The reader of a launch-constant special register (`%tid`, `%ctaid`, `%cluster_ctarank`, ...):
//! a leaf below [`index`](crate::index) and `cluster`, which read their registers through it.
//! GPU only.

/// `pub fn $name() -> u32`: `mov.u32` of the special register `$reg`. `pure` and `nomem`: the
/// registers it is used for hold one value for the whole life of a thread (PTX ISA, "Special
/// Registers"), so LLVM may merge and hoist the reads.
macro_rules! special_register {
    ($(#[$m:meta])* $name:ident, $reg:literal) => {
        $(#[$m])*
        #[inline(always)]
        pub fn $name() -> u32 {
            let v: u32;
            // SAFETY: reads a special register.
            unsafe { core::arch::asm!(concat!("mov.u32 {v}, ", $reg, ";"), v = out(reg32) v,
                                      options(nostack, nomem, pure)) };
            v
        }
    };
}
pub(crate) use special_register;
