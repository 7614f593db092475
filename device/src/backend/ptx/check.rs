//! A failed check on the GPU: the message through `vprintf`, then `trap`, whatever the
//! kernel's panic handler does (a handler that only traps would hide the message).

/// `check!` on the GPU: at run time [`check_failed`](crate::check_failed), in a `const fn`
/// evaluated at compile time [`check_failed_in_const`](crate::check_failed_in_const)
/// (`const_eval_select`).
macro_rules! check {
    ($cond:expr, $msg:expr) => {
        if !$cond {
            // Both functions stop with the same message (NUL-terminated for `vprintf`).
            ::core::intrinsics::const_eval_select(
                (::core::concat!("ptx-sync: ", $msg, "\n\0"),),
                $crate::check_failed_in_const,
                $crate::check_failed,
            )
        }
    };
}
pub(crate) use check;

/// An unconditional failure with `$msg` (a literal): [`check_failed`](crate::check_failed).
macro_rules! fail {
    ($msg:literal) => {
        $crate::check_failed(::core::concat!("ptx-sync: ", $msg, "\n\0"))
    };
}
pub(crate) use fail;

/// The one trap path of the GPU build: `vprintf` of `message` (no conversions, no arguments),
/// then `trap`.
///
/// # Safety
/// `message` is NUL-terminated and holds no `%`.
#[inline(always)]
pub(crate) unsafe fn print_and_trap(message: *const u8) -> ! {
    // SAFETY: the caller's contract; no arguments.
    unsafe { vprintf_and_trap(message, core::ptr::null()) }
}

/// `vprintf(format, args)`, then `trap`: the end of every report (a failed check, a panic).
///
/// # Safety
/// `format` is NUL-terminated; `args` is a buffer of naturally aligned values, one per
/// conversion of `format`, as `vprintf` reads it.
#[inline(always)]
pub(crate) unsafe fn vprintf_and_trap(format: *const u8, args: *const u8) -> ! {
    extern "C" {
        // CUDA's device-side printf, provided by the driver's JIT (as for `printf` in C++).
        fn vprintf(format: *const u8, args: *const u8) -> i32;
    }
    // SAFETY: the caller's contract.
    unsafe {
        vprintf(format, args);
        core::arch::asm!("trap;", options(noreturn, nostack));
    }
}

/// The body of `debug_trap`: `vprintf` the message and `trap`.
#[inline(always)]
pub(crate) fn debug_trap(message: &'static core::ffi::CStr) -> ! {
    // SAFETY: a `CStr` is NUL-terminated.
    unsafe { print_and_trap(message.as_ptr().cast()) }
}

/// `isspacep.global`: whether `p` is in global memory (the vector atomics' check, sm_90).
#[cfg(target_feature = "sm_90")]
#[inline(always)]
pub(crate) fn is_global(p: *const u8) -> bool {
    super::address_space::in_space(p, super::address_space::SpaceKind::Global)
}

/// `isspacep.local`: whether `p` is in the thread's local memory.
#[inline(always)]
pub(crate) fn is_local(p: *const u8) -> bool {
    super::address_space::in_space(p, super::address_space::SpaceKind::Local)
}
