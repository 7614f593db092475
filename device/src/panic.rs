//! [`report_panic`]: the body of a kernel crate's panic handler that says what panicked.

use core::fmt::{self, Write};
use core::panic::PanicInfo;

/// The longest report, NUL included: a local array of the handler's thread (no allocator).
const LEN: usize = 256;

/// A fixed buffer that keeps what fits, cut at a character boundary, with room for the NUL.
struct Report {
    bytes: [u8; LEN],
    len: usize,
}

impl Write for Report {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        // The last byte is never written: it stays the NUL that ends the report.
        let room = (LEN - 1).saturating_sub(self.len);
        let mut take = s.len().min(room);
        // Never split a UTF-8 sequence: the terminal shows the report as text.
        while !s.is_char_boundary(take) {
            take -= 1;
        }
        // `get`, not indexing: a failed bounds check here would panic inside the panic
        // handler, which would call this again.
        let dst = self.bytes.get_mut(self.len..self.len + take);
        if let (Some(dst), Some(src)) = (dst, s.as_bytes().get(..take)) {
            dst.copy_from_slice(src);
            self.len += take;
        }
        // A full buffer stops the formatting: the rest would be dropped anyway.
        if take < s.len() {
            Err(fmt::Error)
        } else {
            Ok(())
        }
    }
}

/// Prints the panic's location and message on the GPU (`vprintf`, so it reaches the host's
/// stdout when the driver flushes the printf buffer, after the launch fails), then traps. A
/// kernel crate's panic handler can be just this:
///
/// ```ignore
/// #[panic_handler]
/// fn panic(info: &core::panic::PanicInfo) -> ! {
///     ptx_sync::report_panic(info)
/// }
/// ```
///
/// Each panicking thread prints one line such as
/// `panicked at src/lib.rs:12:5: index out of bounds: the len is 4 but the index is 7`. The
/// report is formatted without an allocator into a 256-byte buffer on the thread's stack
/// (local memory) and cut at a character boundary when longer. A handler that only traps
/// (`core::arch::nvptx::trap()`) loses the message; ptx-sync's own checks print theirs either
/// way. Formatting adds `core::fmt` to the PTX of kernels that can panic. GPU only.
///
/// PTX: `call.uni vprintf, ("%s\n", [report])`, then `trap;`.
#[cold]
#[inline(never)]
pub fn report_panic(info: &PanicInfo) -> ! {
    let mut report = Report {
        bytes: [0; LEN],
        len: 0,
    };
    // An `Err` means the buffer is full: print what it holds.
    let _ = match info.location() {
        Some(l) => write!(
            report,
            "panicked at {}:{}:{}: {}",
            l.file(),
            l.line(),
            l.column(),
            info.message()
        ),
        None => write!(report, "panicked: {}", info.message()),
    };
    // `vprintf`'s arguments are a buffer of naturally aligned values, here one pointer to the
    // NUL-terminated report.
    let args: [*const u8; 1] = [report.bytes.as_ptr()];
    // SAFETY: `%s` with one string argument, laid out as vprintf reads it, NUL-terminated
    // (`write_str` never writes the buffer's last byte, which starts as 0).
    unsafe {
        crate::backend::check::vprintf_and_trap(c"%s\n".as_ptr().cast(), args.as_ptr().cast())
    }
}
