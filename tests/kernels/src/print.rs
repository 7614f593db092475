//! Kernels of the `gpu_println!` tests: `print_one_line` is the golden PTX case
//! (tests/tests/print_ptx.rs: one `call vprintf`, the format a `.global`), `print_lines` prints
//! known lines that tests/src/cases/print.rs compares, exactly, with what reaches the host's
//! stdout.

use ptx_sync::{block, gpu_print, gpu_println};

/// One line of two arguments: `print_one_line: x = %u y = %lld\n`.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn print_one_line(x: u32, y: i64) {
    gpu_println!("print_one_line: x = {} y = {}", x, y);
}

/// Thread 0 of block 0 prints the lines of `ORDERED` (tests/src/cases/print.rs) in order, with
/// the values from the arguments (`big` = u32::MAX, `small` = i32::MIN, `ptr` any address the
/// host knows); then every thread prints `print-thread: block B thread T of N`.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn print_lines(big: u32, small: i32, ptr: *const u32) {
    let (t, b) = (block::thread_x(), block::index_x());
    if t == 0 && b == 0 {
        gpu_println!(
            "print: u32 {} i32 {} u64 {} i64 {}",
            big,
            small,
            big as u64 * big as u64,
            small as i64 * 4
        );
        gpu_println!(
            "print: u8 {} u16 {} usize {} isize {} i8 {} i16 {}",
            big as u8,
            big as u16,
            big as usize + 1,
            small as isize,
            small as i8 - 1,
            small as i16 - 1
        );
        gpu_println!(
            "print: hex {:x} {:X} {:x} {:x} {:X}",
            big - 0x2152_4110,
            big - 0x2152_4110,
            0x0123_4567_89ab_cdef_u64 + (big as u64 & 1) - 1,
            small,
            small as i64
        );
        gpu_println!(
            "print: f32 {} f64 {} third {} inf {}",
            1.5f32,
            -(small as f64) / -8_589_934_592.0,
            1.0f64 / 3.0,
            f64::INFINITY
        );
        gpu_println!(
            "print: bool {} {} str {}",
            big > 0,
            small > 0,
            c"hello, world"
        );
        gpu_println!("print: 100% {{braces}} and {}%", big / 42_949_673);
        gpu_println!("print: ptr {} = {:x}", ptr, ptr as u64);
        gpu_print!("print: partial ");
        gpu_println!("line {}", 1u32);
        gpu_println!("print: no arguments");
    }
    gpu_println!(
        "print-thread: block {} thread {} of {}",
        b,
        t,
        block::dim_x()
    );
}
