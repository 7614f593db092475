//! `gpu_println!` on the GPU: one `vprintf` of the format a `const` built and a buffer of the
//! promoted arguments.

use crate::print::{Arguments, Line, Literal};

impl<L: Literal, A: Arguments, const N: usize> Line<L, A, N> {
    /// Prints the line with `vprintf`.
    #[inline(always)]
    pub fn print(self) {
        extern "C" {
            // CUDA's device-side printf (see `print_and_trap` in backend/ptx/check.rs).
            fn vprintf(format: *const u8, args: *const u8) -> i32;
        }
        // A promoted constant: a `.global` of the module, as nvcc emits a `printf`'s format.
        let format: &'static [u8; N] = &Self::FORMAT;
        let buffer = self.arguments.buffer();
        let args: *const u8 = if A::CONVERSIONS.is_empty() {
            core::ptr::null()
        } else {
            (&raw const buffer).cast()
        };
        // SAFETY: the format is NUL-terminated (`format` leaves the last byte 0) and its
        // conversions are the arguments' own, in order; the buffer holds each promoted value
        // at its alignment, as `vprintf` reads them, and lives until it returns.
        unsafe {
            vprintf(format.as_ptr(), args);
        }
    }
}

/// Prints the line of [`__gpu_line!`](crate::__gpu_line): `vprintf` on the GPU, the calling
/// crate's `std` on the host.
#[doc(hidden)]
#[macro_export]
macro_rules! __gpu_print {
    ($format:expr $(, $argument:expr)*) => {{
        // One statement, so that temporaries in the arguments live until the line is printed.
        $crate::__gpu_line!($format $(, $argument)*).print();
    }};
}
