//! A failed check on the host: a panic with the message, which a test can expect.

/// `check!` on the host: an `assert!` (in a `const fn` evaluated at compile time, a
/// compile-time panic).
macro_rules! check {
    ($cond:expr, $msg:expr) => {
        assert!($cond, "{}", $msg)
    };
}
pub(crate) use check;

/// An unconditional failure with `$msg` (a literal): a panic at the caller's caller where the
/// caller is `#[track_caller]`.
macro_rules! fail {
    ($msg:literal) => {
        $crate::backend::check::failed($msg)
    };
}
pub(crate) use fail;

/// Out of line, so that the inlined checks stay small; `#[track_caller]` so that the panic
/// names the user's call.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn failed(msg: &'static str) -> ! {
    panic!("{}", msg)
}

/// The body of `debug_trap`: a panic with the message.
#[inline(always)]
pub(crate) fn debug_trap(message: &'static core::ffi::CStr) -> ! {
    panic!(
        "{}",
        message.to_str().unwrap_or("ptx-sync: misuse").trim_end()
    );
}

// The vector atomics' check (no vector atomics under loom).
cfg_not_loom! {
    /// Host memory is all one space: every pointer stands for global memory.
    #[inline(always)]
    pub(crate) fn is_global(_p: *const u8) -> bool {
        true
    }
}

/// A host thread has no local memory that atomics refuse.
#[inline(always)]
pub(crate) fn is_local(_p: *const u8) -> bool {
    false
}
