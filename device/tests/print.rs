//! `gpu_println!` / `gpu_print!` on the host backend: the printf format each call builds at
//! compile time (the bytes the GPU's `vprintf` gets, checked in the PTX by
//! tests/tests/print_ptx.rs), and the text the host prints, which is what C's printf prints for
//! that format (the GPU suite's `print_*` cases compare the GPU's own output with the same
//! lines).
// Not a loom model: built without `--cfg loom` only (loom's run builds every test target).
#![cfg(not(loom))]

use ptx_sync::print::{Arguments, Line, Literal};
use ptx_sync::{__gpu_line, gpu_print, gpu_println};

/// The printf format of a line, up to its NUL, and the zero padding after it.
fn format_of<L: Literal, A: Arguments, const N: usize>(_: &Line<L, A, N>) -> (&'static str, usize) {
    let bytes: &'static [u8; N] = &Line::<L, A, N>::FORMAT;
    let end = bytes.iter().position(|&b| b == 0).expect("NUL-terminated");
    assert!(
        bytes[end..].iter().all(|&b| b == 0),
        "zero-padded after the NUL"
    );
    (std::str::from_utf8(&bytes[..end]).unwrap(), N - end)
}

/// Each line: (its format, what it prints). Both exact.
#[test]
fn every_type_gets_its_conversion_and_prints_as_printf() {
    let mut checks = 0;
    let mut check = |got: (String, &str), format: &str, text: &str| {
        assert_eq!(got.1, format, "format");
        assert_eq!(got.0, text, "text");
        checks += 1;
    };
    macro_rules! line {
        ($($t:tt)*) => {{
            let l = __gpu_line!($($t)*);
            (l.to_string(), format_of(&l).0)
        }};
    }
    check(
        line!("x = {} y = {}\n", 7u32, -3i64),
        "x = %u y = %lld\n",
        "x = 7 y = -3\n",
    );
    check(
        line!(
            "u8 {} u16 {} u32 {} u64 {} usize {}",
            255u8,
            65535u16,
            u32::MAX,
            u64::MAX,
            usize::MAX
        ),
        "u8 %u u16 %u u32 %u u64 %llu usize %llu",
        "u8 255 u16 65535 u32 4294967295 u64 18446744073709551615 usize 18446744073709551615",
    );
    check(
        line!(
            "i8 {} i16 {} i32 {} i64 {} isize {}",
            i8::MIN,
            i16::MIN,
            i32::MIN,
            i64::MIN,
            -1isize
        ),
        "i8 %d i16 %d i32 %d i64 %lld isize %lld",
        "i8 -128 i16 -32768 i32 -2147483648 i64 -9223372036854775808 isize -1",
    );
    check(
        line!(
            "hex {:x} {:X} {:x} {:x} {:X} {:x}",
            0xdead_beefu32,
            0xabu8,
            -1i32,
            0x0123_4567_89ab_cdefu64,
            u64::MAX,
            -2i64
        ),
        "hex %x %X %x %llx %llX %llx",
        "hex deadbeef AB ffffffff 123456789abcdef FFFFFFFFFFFFFFFF fffffffffffffffe",
    );
    check(
        line!(
            "f {} {} {} {} {} {} {}",
            1.5f32,
            -0.25f64,
            2.0f64 / 3.0,
            1e20f64,
            -0.0f64,
            f64::INFINITY,
            f32::NAN
        ),
        "f %f %f %f %f %f %f %f",
        "f 1.500000 -0.250000 0.666667 100000000000000000000.000000 -0.000000 inf nan",
    );
    check(
        line!(
            "bool {} {} str {} {}",
            true,
            false,
            c"hello",
            c"caf\xc3\xa9"
        ),
        "bool %s %s str %s %s",
        "bool true false str hello café",
    );
    let p = 0x7f00_1234_5000usize as *const u32;
    let local = 0u64;
    check(
        line!(
            "ptr {} {} {}",
            p,
            std::ptr::null_mut::<f64>(),
            &raw const local
        ),
        "ptr %p %p %p",
        &format!("ptr 0x7f0012345000 (nil) {:#x}", (&raw const local).addr()),
    );
    // References print as their values; an argument is evaluated once.
    let (a, b) = (5u32, c"x");
    let ra = &a;
    let mut evaluated = 0;
    check(
        line!("{} {} {} {}", ra, &ra, b, {
            evaluated += 1;
            evaluated
        }),
        "%u %u %s %d",
        "5 5 x 1",
    );
    assert_eq!(evaluated, 1);
    // Escapes: `%` is `%%` in the format and prints itself; `{{` and `}}` print a brace;
    // non-ASCII text passes through.
    check(
        line!("100% {{sure}} {}%, µs: {}", 50u32, 3.0f32),
        "100%% {sure} %u%%, µs: %f",
        "100% {sure} 50%, µs: 3.000000",
    );
    check(line!("no arguments"), "no arguments", "no arguments");
    check(line!(""), "", "");
    check(line!("{}", 0u32), "%u", "0");
    assert_eq!(checks, 12);
}

/// The format's array is as long as `capacity` says, and that leaves room: 2 bytes more than the
/// literal per `{` (a `{}` of a 64-bit integer grows to `%llu`), 1 per `%`, and the NUL.
#[test]
fn the_format_fits_its_capacity() {
    let l = __gpu_line!("{}{}{}", 1u64, 2i64, 3usize);
    assert_eq!(format_of(&l), ("%llu%lld%llu", 1));
    let l = __gpu_line!("{}{}", 1u32, 2.0f64);
    assert_eq!(
        format_of(&l),
        ("%u%f", 5),
        "32-bit conversions leave padding"
    );
    let l = __gpu_line!("%%%");
    assert_eq!(format_of(&l), ("%%%%%%", 1));
    let l = __gpu_line!("{:x}{:X}", 1u64, 2u64);
    assert_eq!(format_of(&l), ("%llx%llX", 5));
    let l = __gpu_line!("{{}}");
    assert_eq!(format_of(&l), ("{}", 7));
    assert_eq!(ptx_sync::print::capacity("{}"), 5);
    assert_eq!(ptx_sync::print::capacity(""), 1);
}

/// The macros themselves run on the host (printing through std): the newline of
/// `gpu_println!`, trailing commas, an empty `gpu_println!()`.
#[test]
fn the_macros_print_on_the_host() {
    gpu_print!("host backend: {} ", 1u32);
    gpu_println!("{}", c"line",);
    gpu_println!();
    // Temporaries in the arguments live until the line is printed, as with `println!`.
    gpu_println!("{} {}", &&7u32, &(2u64 * 3));
    let l = __gpu_line!(concat!("{} and {}", "\n"), 1u8, 2u16);
    assert_eq!(l.to_string(), "1 and 2\n");
}
