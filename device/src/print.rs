//! Formatted output from a kernel: [`gpu_println!`](crate::gpu_println) and
//! [`gpu_print!`](crate::gpu_print), over CUDA's device-side `printf` (`vprintf`), with Rust's
//! `{}` placeholders checked against the arguments at compile time.
//!
//! ```ignore
//! use ptx_sync::gpu_println;
//! gpu_println!("block {} thread {}: sum = {} ({:x}), mean = {}", b, t, sum, sum, mean);
//! // block 3 thread 17: sum = 1234 (4d2), mean = 0.500000
//! ```
//!
//! The format string is a literal. Each `{}` becomes the printf conversion of its argument's
//! type, chosen at compile time through the sealed trait [`Printable`]:
//!
//! | argument | `{}` | `{:x}` / `{:X}` | passed to `vprintf` as |
//! |---|---|---|---|
//! | `u8`, `u16`, `u32` | `%u` | `%x` / `%X` | `u32` |
//! | `i8`, `i16`, `i32` | `%d` | `%x` / `%X` for `i32` (two's complement, as Rust's) | `i32` |
//! | `u64`, `usize` | `%llu` | `%llx` / `%llX` | `u64` |
//! | `i64`, `isize` | `%lld` | `%llx` / `%llX` (two's complement) | `i64` |
//! | `f32`, `f64` | `%f` (6 decimals, as C's printf) | - | `f64` (C's promotion) |
//! | `bool` | `%s`: `true` / `false` | - | a pointer to a static string |
//! | `&CStr` (`c"text"`) | `%s` | - | its pointer |
//! | `*const T`, `*mut T` | `%p` | - | the address |
//! | `&T` of any of these | as `T` | as `T` | as `T` |
//!
//! `{{` and `}}` print a brace, and a `%` in the literal prints itself (it is written `%%` in
//! the printf format). Everything is decided at compile time: a placeholder count that
//! differs from the argument count, a placeholder other than `{}`, `{:x}` and `{:X}`, an
//! argument of another type (a `&str`, whose text has no NUL: write `c"text"`; a `String`; a
//! `char`; a `u128`), or `{:x}` of a float, bool, string, pointer, `i8` or `i16` (whose `%x`
//! would print all 32 bits of the promoted value) is a compile error; that last one when the
//! crate is built, since only then are the arguments' types known to the `const` (`cargo
//! check` does not see it). At most 12 arguments.
//!
//! Nothing is allocated. The printf format is a byte array that a `const` builds from the
//! literal and the arguments' conversions, so it is a `.global` of the module, where nvcc puts
//! a `printf`'s format too (the final formatting happens on the host, by its C library, as for
//! CUDA C++'s `printf`); the arguments are copied into a
//! `#[repr(C, align(8))]` struct on the thread's stack, each at its own alignment (8 for
//! `f64`, `u64` and pointers), which is the buffer `vprintf` reads. The PTX of one call:
//! the stores of the arguments into the local buffer, then
//! `call.uni (retval), vprintf, (format, buffer);` (a null buffer without arguments).
//!
//! The output reaches the host's stdout when the driver flushes its printf buffer: at the next
//! synchronization with the GPU (`Device::wait`, a copy), at a launch, or at exit. The buffer
//! is 1 MiB by default (`cuCtxSetLimit(CU_LIMIT_PRINTF_FIFO_SIZE)`); what does not fit is
//! lost. Lines from different threads interleave in no particular order; one thread's lines
//! come in the order it printed them.
//!
//! On the host backend (the crate built for anything but nvptx: `cargo test` of kernel code)
//! the same line is printed with `std`'s `print!` of the calling crate, formatted as C's
//! printf would print the same conversions (`%f` with 6 decimals, `inf`, `nan`, `%p` as
//! `0x...`, a null pointer as `(nil)`, glibc's forms), so kernel code that prints still
//! compiles and runs in host tests. The calling crate needs `std` there (host code has it);
//! the device crate itself stays `no_std`.

use core::marker::PhantomData;
crate::backend::cfg_host! {
    use core::fmt;
}

/// How one argument is printed: its printf conversion for `{}`, and for `{:x}` / `{:X}` where
/// the type has one (each conversion at most 4 bytes: `%llu`).
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct Conversion {
    /// For `{}`.
    pub display: &'static str,
    /// For `{:x}`; `None` where hex is refused.
    pub lower_hex: Option<&'static str>,
    /// For `{:X}`.
    pub upper_hex: Option<&'static str>,
}

mod sealed {
    pub trait Sealed {}
    pub trait SealedArguments {}
}

/// A type [`gpu_println!`](crate::gpu_println) can print (sealed: the table in the
/// [module](self) lists them). Its items are the macro's business.
#[diagnostic::on_unimplemented(
    message = "gpu_println!/gpu_print! cannot print a `{Self}`",
    label = "not printable from a kernel",
    note = "printable: u8, u16, u32, u64, usize, i8, i16, i32, i64, isize, f32, f64, bool, \
            &CStr (a C string literal c\"...\", not a &str: vprintf needs the NUL), *const T, \
            *mut T, and references to these"
)]
pub trait Printable: sealed::Sealed {
    /// Its printf conversions.
    #[doc(hidden)]
    const CONVERSION: Conversion;
    /// What `vprintf` reads for it: C's default argument promotion (`u32`, `i32`, `u64`,
    /// `i64`, `f64`, a pointer).
    #[doc(hidden)]
    type Raw: Copy;
    /// The value `vprintf` reads.
    #[doc(hidden)]
    fn raw(&self) -> Self::Raw;
    crate::backend::cfg_host! {
        /// Writes the value as C's printf prints it with `conversion` (the conversion's letter:
        /// `u`, `d`, `x`, `X`, `f`, `s`, `p`).
        #[doc(hidden)]
        fn host_fmt(&self, conversion: u8, f: &mut fmt::Formatter<'_>) -> fmt::Result;
    }
}

const fn conv(
    display: &'static str,
    lower_hex: Option<&'static str>,
    upper_hex: Option<&'static str>,
) -> Conversion {
    Conversion {
        display,
        lower_hex,
        upper_hex,
    }
}

/// Integers: `$raw` is the promoted type, `$bits` the unsigned type of the same width as
/// `$raw` (what `%x` prints of a negative value).
macro_rules! integers {
    ($($t:ty => $raw:ty, $bits:ty, $d:literal, $x:expr, $upper:expr;)*) => {$(
        impl sealed::Sealed for $t {}
        impl Printable for $t {
            const CONVERSION: Conversion = conv($d, $x, $upper);
            type Raw = $raw;
            #[inline(always)]
            fn raw(&self) -> $raw {
                *self as $raw
            }
            crate::backend::cfg_host! {
                fn host_fmt(&self, conversion: u8, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    let raw = *self as $raw;
                    match conversion {
                        b'x' => write!(f, "{:x}", raw as $bits),
                        b'X' => write!(f, "{:X}", raw as $bits),
                        _ => write!(f, "{}", raw),
                    }
                }
            }
        }
    )*};
}

integers! {
    u8 => u32, u32, "%u", Some("%x"), Some("%X");
    u16 => u32, u32, "%u", Some("%x"), Some("%X");
    u32 => u32, u32, "%u", Some("%x"), Some("%X");
    // i8 and i16 in hex would print all 32 bits of the promoted value, where Rust prints 8 or
    // 16: refused rather than different.
    i8 => i32, u32, "%d", None, None;
    i16 => i32, u32, "%d", None, None;
    i32 => i32, u32, "%d", Some("%x"), Some("%X");
    u64 => u64, u64, "%llu", Some("%llx"), Some("%llX");
    usize => u64, u64, "%llu", Some("%llx"), Some("%llX");
    i64 => i64, u64, "%lld", Some("%llx"), Some("%llX");
    isize => i64, u64, "%lld", Some("%llx"), Some("%llX");
}

macro_rules! floats {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Printable for $t {
            const CONVERSION: Conversion = conv("%f", None, None);
            type Raw = f64;
            #[inline(always)]
            fn raw(&self) -> f64 {
                *self as f64
            }
            crate::backend::cfg_host! {
                fn host_fmt(&self, _: u8, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    crate::backend::print::printf_f(*self as f64, f)
                }
            }
        }
    )*};
}

floats!(f32, f64);

impl sealed::Sealed for bool {}
impl Printable for bool {
    const CONVERSION: Conversion = conv("%s", None, None);
    type Raw = *const u8;
    #[inline(always)]
    fn raw(&self) -> *const u8 {
        let text: &'static core::ffi::CStr = if *self { c"true" } else { c"false" };
        text.as_ptr().cast()
    }
    crate::backend::cfg_host! {
        fn host_fmt(&self, _: u8, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(if *self { "true" } else { "false" })
        }
    }
}

impl sealed::Sealed for &core::ffi::CStr {}
impl Printable for &core::ffi::CStr {
    const CONVERSION: Conversion = conv("%s", None, None);
    type Raw = *const u8;
    #[inline(always)]
    fn raw(&self) -> *const u8 {
        self.as_ptr().cast()
    }
    crate::backend::cfg_host! {
        fn host_fmt(&self, _: u8, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            // Bytes that are not UTF-8 print as U+FFFD, as a terminal would show them.
            for chunk in self.to_bytes().utf8_chunks() {
                f.write_str(chunk.valid())?;
                if !chunk.invalid().is_empty() {
                    f.write_str("\u{fffd}")?;
                }
            }
            Ok(())
        }
    }
}

macro_rules! pointers {
    ($($p:ty),*) => {$(
        impl<T> sealed::Sealed for $p {}
        impl<T> Printable for $p {
            const CONVERSION: Conversion = conv("%p", None, None);
            type Raw = *const u8;
            #[inline(always)]
            fn raw(&self) -> *const u8 {
                self.cast()
            }
            crate::backend::cfg_host! {
                fn host_fmt(&self, _: u8, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    if self.is_null() {
                        f.write_str("(nil)")
                    } else {
                        write!(f, "{:#x}", self.addr())
                    }
                }
            }
        }
    )*};
}

pointers!(*const T, *mut T);

impl<T: Printable> sealed::Sealed for &T {}
impl<T: Printable> Printable for &T {
    const CONVERSION: Conversion = T::CONVERSION;
    type Raw = T::Raw;
    #[inline(always)]
    fn raw(&self) -> T::Raw {
        (**self).raw()
    }
    crate::backend::cfg_host! {
        fn host_fmt(&self, conversion: u8, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            (**self).host_fmt(conversion, f)
        }
    }
}

/// The arguments of one call, as a tuple of [`Printable`]s (at most 12).
#[doc(hidden)]
pub trait Arguments: sealed::SealedArguments {
    /// Each argument's conversions, in order.
    const CONVERSIONS: &'static [Conversion];
    /// The buffer `vprintf` reads: the promoted values in a `#[repr(C, align(8))]` struct.
    type Buffer;
    /// The buffer of these values.
    fn buffer(&self) -> Self::Buffer;
    crate::backend::cfg_host! {
        /// Writes argument `index` with `conversion` (see [`Printable::host_fmt`]).
        fn host_fmt(&self, index: usize, conversion: u8, f: &mut fmt::Formatter<'_>) -> fmt::Result;
    }
}

impl sealed::SealedArguments for () {}
impl Arguments for () {
    const CONVERSIONS: &'static [Conversion] = &[];
    type Buffer = ();
    #[inline(always)]
    fn buffer(&self) {}
    crate::backend::cfg_host! {
        fn host_fmt(&self, _: usize, _: u8, _: &mut fmt::Formatter<'_>) -> fmt::Result {
            Ok(())
        }
    }
}

macro_rules! tuples {
    ($($buffer:ident($($T:ident $i:tt),+);)*) => {$(
        /// The buffer `vprintf` reads for this many arguments: each field at its own
        /// alignment (`repr(C)`), the whole 8-byte aligned.
        #[doc(hidden)]
        #[repr(C, align(8))]
        #[derive(Clone, Copy, Debug)]
        pub struct $buffer<$($T),+>($(pub $T),+);

        impl<$($T: Printable),+> sealed::SealedArguments for ($($T,)+) {}
        impl<$($T: Printable),+> Arguments for ($($T,)+) {
            const CONVERSIONS: &'static [Conversion] = &[$($T::CONVERSION),+];
            type Buffer = $buffer<$($T::Raw),+>;
            #[inline(always)]
            fn buffer(&self) -> Self::Buffer {
                $buffer($(self.$i.raw()),+)
            }
            crate::backend::cfg_host! {
                fn host_fmt(
                    &self,
                    index: usize,
                    conversion: u8,
                    f: &mut fmt::Formatter<'_>,
                ) -> fmt::Result {
                    match index {
                        $($i => self.$i.host_fmt(conversion, f),)+
                        _ => Ok(()),
                    }
                }
            }
        }
    )*};
}

tuples! {
    Buffer1(A 0);
    Buffer2(A 0, B 1);
    Buffer3(A 0, B 1, C 2);
    Buffer4(A 0, B 1, C 2, D 3);
    Buffer5(A 0, B 1, C 2, D 3, E 4);
    Buffer6(A 0, B 1, C 2, D 3, E 4, F 5);
    Buffer7(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
    Buffer8(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
    Buffer9(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
    Buffer10(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
    Buffer11(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
    Buffer12(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);
}

/// The format literal of one call, as a type (the macro declares one per call), so that a
/// `const` generic over the arguments' types can read it.
#[doc(hidden)]
pub trait Literal {
    /// The literal, with the newline of `gpu_println!`.
    const TEXT: &'static str;
}

/// What one placeholder of the literal is.
#[derive(Clone, Copy)]
enum Placeholder {
    Display,
    LowerHex,
    UpperHex,
}

/// The piece of `text` at byte `i`: `Some((placeholder, length))` for `{}`, `{:x}`, `{:X}`;
/// `None` for any other byte. Panics (a compile error: this runs in `const`s) on a brace that
/// is neither a placeholder nor `{{` / `}}`, which the caller handles first.
const fn placeholder_at(text: &[u8], i: usize) -> Option<(Placeholder, usize)> {
    if text[i] != b'{' {
        return None;
    }
    let rest = text.len() - i;
    if rest >= 2 && text[i + 1] == b'}' {
        return Some((Placeholder::Display, 2));
    }
    if rest >= 4 && text[i + 1] == b':' && text[i + 3] == b'}' {
        match text[i + 2] {
            b'x' => return Some((Placeholder::LowerHex, 4)),
            b'X' => return Some((Placeholder::UpperHex, 4)),
            _ => {}
        }
    }
    panic!(
        "gpu_println!: unsupported placeholder in the format string: only {{}} {{:x}} {{:X}} (and \
         {{{{ }}}} for a brace) are supported"
    )
}

/// Walks `text` as a format literal: calls back nothing, returns the number of placeholders,
/// and panics (a compile error) on anything the printf translation cannot express.
const fn count_placeholders(text: &str) -> usize {
    let t = text.as_bytes();
    let (mut i, mut n) = (0, 0);
    while i < t.len() {
        match t[i] {
            b'{' if i + 1 < t.len() && t[i + 1] == b'{' => i += 2,
            b'}' if i + 1 < t.len() && t[i + 1] == b'}' => i += 2,
            b'}' => panic!(
                "gpu_println!: unmatched `}}` in the format string (write `}}}}` to print a brace)"
            ),
            0 => {
                panic!("gpu_println!: the format string holds a NUL byte, where printf would stop")
            }
            _ => match placeholder_at(t, i) {
                Some((_, len)) => {
                    n += 1;
                    i += len;
                }
                None => i += 1,
            },
        }
    }
    n
}

/// The macro's check that the literal's placeholders and the arguments agree in number (a
/// `const` of the calling crate: a compile error where they differ).
#[doc(hidden)]
pub const fn check_arguments(text: &str, arguments: usize) {
    let placeholders = count_placeholders(text);
    if placeholders > arguments {
        panic!("gpu_println!: the format string has more {{}} placeholders than arguments");
    }
    if placeholders < arguments {
        panic!("gpu_println!: more arguments than {{}} placeholders in the format string");
    }
}

/// An upper bound of the printf format's length for the literal `text`, its NUL included:
/// a `{` becomes at most 4 bytes (`{}` -> `%llu`: +2 for the 2 bytes of `{}`; `{:x}` ->
/// `%llx` keeps its 4), a `%` 2 (`%%`), and the NUL is one more.
#[doc(hidden)]
pub const fn capacity(text: &str) -> usize {
    let t = text.as_bytes();
    let (mut i, mut n) = (0, t.len() + 1);
    while i < t.len() {
        match t[i] {
            b'{' => n += 2,
            b'%' => n += 1,
            _ => {}
        }
        i += 1;
    }
    n
}

/// Copies `s` into `out` at `o`; returns the new end.
const fn put(out: &mut [u8], mut o: usize, s: &[u8]) -> usize {
    let mut i = 0;
    while i < s.len() {
        out[o] = s[i];
        o += 1;
        i += 1;
    }
    o
}

/// The printf format of `text` with `conversions` in place of its placeholders, NUL-terminated
/// and zero-padded to `N` ([`capacity`]). Panics (a compile error) where a placeholder's
/// argument has no such conversion (`{:x}` of a float) or the counts differ.
#[doc(hidden)]
pub const fn format<const N: usize>(text: &str, conversions: &[Conversion]) -> [u8; N] {
    let t = text.as_bytes();
    let mut out = [0u8; N];
    let (mut i, mut o, mut arg) = (0, 0, 0);
    while i < t.len() {
        match t[i] {
            b'{' if i + 1 < t.len() && t[i + 1] == b'{' => {
                o = put(&mut out, o, b"{");
                i += 2;
            }
            b'}' if i + 1 < t.len() && t[i + 1] == b'}' => {
                o = put(&mut out, o, b"}");
                i += 2;
            }
            b'%' => {
                o = put(&mut out, o, b"%%");
                i += 1;
            }
            _ => match placeholder_at(t, i) {
                Some((kind, len)) => {
                    if arg >= conversions.len() {
                        panic!("gpu_println!: more {{}} placeholders than arguments");
                    }
                    let c = conversions[arg];
                    let s = match kind {
                        Placeholder::Display => c.display,
                        Placeholder::LowerHex => match c.lower_hex {
                            Some(s) => s,
                            None => panic!(
                                "gpu_println!: {{:x}} needs an integer argument (u8..u64, i32, \
                                 i64, usize, isize)"
                            ),
                        },
                        Placeholder::UpperHex => match c.upper_hex {
                            Some(s) => s,
                            None => panic!(
                                "gpu_println!: {{:X}} needs an integer argument (u8..u64, i32, \
                                 i64, usize, isize)"
                            ),
                        },
                    };
                    o = put(&mut out, o, s.as_bytes());
                    arg += 1;
                    i += len;
                }
                None => {
                    out[o] = t[i];
                    o += 1;
                    i += 1;
                }
            },
        }
    }
    if arg != conversions.len() {
        panic!("gpu_println!: more arguments than {{}} placeholders");
    }
    // `out[o]` is the NUL: `capacity` leaves room for it.
    let _ = o;
    out
}

/// One call of the macro: its literal `L`, its arguments `A`, its format's capacity `N`.
#[doc(hidden)]
#[derive(Debug)]
pub struct Line<L, A, const N: usize> {
    pub(crate) arguments: A,
    _literal: PhantomData<L>,
}

impl<L: Literal, A: Arguments, const N: usize> Line<L, A, N> {
    /// The printf format, built at compile time.
    pub const FORMAT: [u8; N] = format::<N>(L::TEXT, A::CONVERSIONS);

    /// The line of these arguments.
    #[inline(always)]
    pub fn new(arguments: A) -> Self {
        Line {
            arguments,
            _literal: PhantomData,
        }
    }
}

/// Prints a line from a kernel: Rust's `println!` for the GPU, over CUDA's `vprintf`. The
/// format string is a literal with `{}`, `{:x}` and `{:X}` placeholders; the arguments are
/// integers, floats, `bool`s, C strings (`c"..."`) and raw pointers (the table in
/// [`ptx_sync::print`](crate::print)). Counts and types are checked at compile time, and
/// nothing is allocated.
///
/// ```
/// let (block, sum, mean) = (3u32, 1234u64, 0.5f32);
/// ptx_sync::gpu_println!("block {} sum = {} ({:x}), mean = {}, {}", block, sum, sum, mean, c"ok");
/// // block 3 sum = 1234 (4d2), mean = 0.500000, ok
/// ```
///
/// On the GPU this is one `call.uni vprintf` with the format `"block %u sum = %llu (%llx), mean
/// = %f, %s\n"` (a `.global` of the module) and a buffer of the five values. The output
/// reaches the host's stdout at its next synchronization with the GPU. On the host backend it
/// prints the same text through `std` (the example above runs there).
///
/// A wrong number of arguments, or an argument that cannot be printed, does not compile:
///
/// ```compile_fail
/// ptx_sync::gpu_println!("{} {}", 1u32);
/// ```
///
/// ```compile_fail
/// ptx_sync::gpu_println!("{}", "a &str has no NUL: write c\"...\"");
/// ```
///
/// ```compile_fail
/// ptx_sync::gpu_println!("{:x}", 1.5f32);
/// ```
#[macro_export]
macro_rules! gpu_println {
    () => {
        $crate::__gpu_print!("\n")
    };
    ($format:literal $(, $argument:expr)* $(,)?) => {
        $crate::__gpu_print!(::core::concat!($format, "\n") $(, $argument)*)
    };
}

/// [`gpu_println!`] without the newline: prints the text as it is (CUDA's `printf`).
///
/// ```
/// ptx_sync::gpu_print!("{}% of {} ", 50u32, c"the warps");
/// ptx_sync::gpu_println!("done");
/// // 50% of the warps done
/// ```
#[macro_export]
macro_rules! gpu_print {
    ($format:literal $(, $argument:expr)* $(,)?) => {
        $crate::__gpu_print!($format $(, $argument)*)
    };
}

/// The [`print::Line`](crate::print::Line) of a literal (with its newline, if any) and its
/// arguments, checked: the placeholder count here, the types by the trait bounds, the
/// conversions when the format is built. Host tests format it with `format!`.
#[doc(hidden)]
#[macro_export]
macro_rules! __gpu_line {
    ($format:expr $(, $argument:expr)*) => {{
        struct GpuPrintLiteral;
        impl $crate::print::Literal for GpuPrintLiteral {
            const TEXT: &'static str = $format;
        }
        const _: () = $crate::print::check_arguments(
            $format,
            <[&str]>::len(&[$(::core::stringify!($argument)),*]),
        );
        $crate::print::Line::<GpuPrintLiteral, _, { $crate::print::capacity($format) }>::new((
            $($argument,)*
        ))
    }};
}
