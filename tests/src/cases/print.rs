//! `gpu_println!` on the GPU: what reaches the process's stdout, compared line by line with
//! what C's printf prints for the same formats (tests/kernels/src/print.rs). The device's
//! printf buffer reaches stdout when the driver flushes it (at the synchronization), so the
//! kernel runs in a child process of the runner, whose stdout is read whole
//! (as misuse_messages.rs reads the trap messages).

use crate::runner::run_in_child;
use crate::{Ctx, GpuTest, Outcome};
use ptx_sync_host::cudarc::driver::PushKernelArg;
use ptx_sync_testkit::{launch_config, Result};
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(60);
const BLOCKS: u32 = 2;
const THREADS: u32 = 4;

/// Thread 0's lines, in the order it prints them, for `big` = `u32::MAX` and `small` =
/// `i32::MIN` (the kernel's arguments); the `ptr` line is checked by value ([`check_ptr`]).
const ORDERED: [&str; 9] = [
    "print: u32 4294967295 i32 -2147483648 u64 18446744065119617025 i64 -8589934592",
    "print: u8 255 u16 65535 usize 4294967296 isize -2147483648 i8 -1 i16 -1",
    "print: hex deadbeef DEADBEEF 123456789abcdef 80000000 FFFFFFFF80000000",
    "print: f32 1.500000 f64 -0.250000 third 0.333333 inf inf",
    "print: bool true false str hello, world",
    "print: 100% {braces} and 99%",
    "print: ptr",
    "print: partial line 1",
    "print: no arguments",
];

/// `print: ptr P = X`: `P` is `%p` of `ptr` (`0x` and hex digits, however many leading zeros
/// the driver's printf writes) and `X` is `%llx` of it; both must be `ptr`.
fn check_ptr(line: &str, ptr: u64) -> std::result::Result<(), String> {
    let (p, x) = line
        .strip_prefix("print: ptr ")
        .and_then(|rest| rest.split_once(" = "))
        .ok_or_else(|| format!("not a ptr line: {line:?}"))?;
    let p = p
        .strip_prefix("0x")
        .and_then(|h| u64::from_str_radix(h, 16).ok());
    let x = u64::from_str_radix(x, 16).ok();
    if p == Some(ptr) && x == Some(ptr) {
        Ok(())
    } else {
        Err(format!("{line:?}: expected the address {ptr:#x} twice"))
    }
}

/// Launches `print_lines` (2 blocks of 4 threads) and waits: the lines reach this process's
/// stdout at the wait. Hidden: `print_gpu_println_lines` runs it in a child and reads them.
fn print_lines(ctx: &Ctx) -> Result<String> {
    let kernel = ctx.kernel("print_lines")?;
    let (big, small) = (u32::MAX, i32::MIN);
    let buf = ctx.gpu.zeros::<u32>(1)?;
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(&big).arg(&small).arg(&buf);
    unsafe { ctx.launch_and_wait(b, launch_config(BLOCKS, THREADS, 0), TIMEOUT) }?;
    Ok(format!("printed; ptr {:#x}", device_address(&buf)))
}

/// The device address of `buf` (what the kernel printed as `ptr`).
fn device_address(buf: &ptx_sync_host::cudarc::driver::CudaSlice<u32>) -> u64 {
    use ptx_sync_host::cudarc::driver::DevicePtr;
    let stream = buf.stream().clone();
    let (ptr, _sync) = buf.device_ptr(&stream);
    ptr
}

/// Expected: in a child process whose stdout holds exactly the 9 lines of [`ORDERED`] that
/// start with `print: `, in that order (the `ptr` line by value: the address the child reports,
/// twice), and the 8 lines `print-thread: block B thread T of 4`, one per thread, in any order;
/// no other line starting with `print`.
fn gpu_println_lines(ctx: &Ctx) -> Result<String> {
    let report = run_in_child(&ctx.ptx_dir, "__print_lines", &[], TIMEOUT)?;
    let detail = match report.outcome {
        Outcome::Pass(detail) => detail,
        Outcome::Skip(why) | Outcome::Fail(why) => {
            return Err(format!("__print_lines did not pass in the child: {why}").into())
        }
    };
    let ptr = detail
        .rsplit("ptr 0x")
        .next()
        .and_then(|h| u64::from_str_radix(h.trim(), 16).ok())
        .ok_or_else(|| format!("no address in the child's result: {detail:?}"))?;
    let out = &report.stdout;
    let ordered: Vec<&str> = out
        .iter()
        .map(|l| l.trim_end())
        .filter(|l| l.starts_with("print: "))
        .collect();
    let mut threads: Vec<&str> = out
        .iter()
        .map(|l| l.trim_end())
        .filter(|l| l.starts_with("print-thread: "))
        .collect();
    let others: Vec<&String> = out
        .iter()
        .filter(|l| l.starts_with("print") && !l.starts_with("print: "))
        .filter(|l| !l.starts_with("print-thread: "))
        .collect();
    let mut bad = Vec::new();
    if ordered.len() != ORDERED.len() {
        bad.push(format!(
            "{} `print: ` lines, expected {}: {ordered:#?}",
            ordered.len(),
            ORDERED.len()
        ));
    }
    let mut checks = 0;
    for (got, want) in ordered.iter().zip(ORDERED) {
        let ok = if want == "print: ptr" {
            check_ptr(got, ptr).map_err(|e| bad.push(e)).is_ok()
        } else if *got != want {
            bad.push(format!("got {got:?}, expected {want:?}"));
            false
        } else {
            true
        };
        checks += ok as u32;
    }
    threads.sort_unstable();
    let mut want_threads: Vec<String> = (0..BLOCKS)
        .flat_map(|b| {
            (0..THREADS).map(move |t| format!("print-thread: block {b} thread {t} of {THREADS}"))
        })
        .collect();
    want_threads.sort_unstable();
    if threads != want_threads {
        bad.push(format!(
            "per-thread lines: got {threads:#?}, expected {want_threads:#?}"
        ));
    } else {
        checks += threads.len() as u32;
    }
    if !others.is_empty() {
        bad.push(format!("unexpected lines: {others:?}"));
    }
    if !bad.is_empty() {
        return Err(bad.join("; ").into());
    }
    Ok(format!(
        "{checks} lines exact ({} of thread 0 in order, the address of one by value; {} of \
         {BLOCKS} x {THREADS} threads, one each): every printable type, hex, %, braces, \
         gpu_print! then gpu_println!, no arguments",
        ORDERED.len(),
        BLOCKS * THREADS
    ))
}

pub fn tests() -> Vec<GpuTest> {
    crate::cases![TIMEOUT;
        "print_gpu_println_lines" => gpu_println_lines,
        "__print_lines" => print_lines,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The expected lines are what the host backend of the same macro prints for the same
    /// values (the device crate's tests check that backend against C's printf).
    #[test]
    fn the_expected_lines_are_the_host_backends() {
        use ptx_sync::__gpu_line;
        let (big, small) = (u32::MAX, i32::MIN);
        let host = [
            __gpu_line!(
                "print: u32 {} i32 {} u64 {} i64 {}",
                big,
                small,
                big as u64 * big as u64,
                small as i64 * 4
            )
            .to_string(),
            __gpu_line!(
                "print: u8 {} u16 {} usize {} isize {} i8 {} i16 {}",
                big as u8,
                big as u16,
                big as usize + 1,
                small as isize,
                small as i8 - 1,
                small as i16 - 1
            )
            .to_string(),
            __gpu_line!(
                "print: hex {:x} {:X} {:x} {:x} {:X}",
                big - 0x2152_4110,
                big - 0x2152_4110,
                0x0123_4567_89ab_cdef_u64 + (big as u64 & 1) - 1,
                small,
                small as i64
            )
            .to_string(),
            __gpu_line!(
                "print: f32 {} f64 {} third {} inf {}",
                1.5f32,
                -(small as f64) / -8_589_934_592.0,
                1.0f64 / 3.0,
                f64::INFINITY
            )
            .to_string(),
            __gpu_line!(
                "print: bool {} {} str {}",
                big > 0,
                small > 0,
                c"hello, world"
            )
            .to_string(),
            __gpu_line!("print: 100% {{braces}} and {}%", big / 42_949_673).to_string(),
        ];
        assert_eq!(host, ORDERED[..6]);
        let p = 0x7f12_3450_0000u64;
        let line = __gpu_line!("print: ptr {} = {:x}", p as *const u32, p).to_string();
        assert_eq!(check_ptr(&line, p), Ok(()));
        assert!(check_ptr(&line, p + 4).is_err());
        assert!(check_ptr("print: ptr 0x00007f1234500000 = 7f1234500000", p).is_ok());
    }
}
