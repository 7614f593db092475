//! Faults in a kernel: a trap, a panic, a write through a null pointer and one through a wild
//! pointer. `wait` must report the driver's error, and every later call must answer at once,
//! without a panic and without blocking. A fault leaves the CUDA context unusable (the error is
//! "sticky"), so each fault runs in a case of its own, in its own process.

use crate::{Ctx, GpuTest, KERNELS_PTX};
use ptx_sync_host::cudarc::driver::sys::CUresult;
use ptx_sync_host::cudarc::driver::{DriverError, PushKernelArg};
use ptx_sync_host::{Device, Error, MappedBuffer};
use ptx_sync_testkit::{one_thread, Result};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(30);
/// An address nothing is mapped at in the GPU's virtual address space (far above any
/// allocation of this process).
const WILD: u64 = 0xdead_0000_0000;
/// A global of tests/kernels (tests/kernels/src/host_api.rs) for read_global / write_global.
const GLOBAL: &str = "HOST_API_COUNTER";

/// How a fault is caused.
#[derive(Clone, Copy)]
enum Fault {
    /// `misuse_fault_trap` / `misuse_fault_panic` with control 0.
    Kernel(&'static str),
    /// `misuse_fault_write` to this address.
    Write(u64),
}

/// Whether `r` is the driver error `code`.
fn is_code<T>(r: &ptx_sync_host::Result<T>, code: CUresult) -> bool {
    matches!(r, Err(Error::Driver { source: DriverError(c), .. }) if *c == code)
}

/// "ok" or the error's code (the Display of anything else).
fn verdict<T>(r: &ptx_sync_host::Result<T>) -> String {
    match r {
        Ok(_) => "works".into(),
        Err(Error::Driver {
            source: DriverError(c),
            ..
        }) => format!("{c:?}"),
        Err(e) => e.to_string(),
    }
}

/// The control run first (the kernel with control 1, or a write to a real buffer) must work;
/// then the fault must make `wait` answer `code`; then every call must answer `code` too (the
/// context is unusable, and the driver reports the fault from every call on it), each within
/// 1 s and without a panic: wait again, download, upload, zeros, read_global, write_global, a
/// control launch and wait, load_ptx, with_new_stream, Device::open(0) and MappedBuffer::new.
/// Then dropping the module, the kernel and the buffer returns within 1 s.
fn fault(ctx: &Ctx, fault: Fault, code: CUresult) -> Result<String> {
    let gpu = &ctx.gpu;
    let ptx = ctx.ptx_dir.join(KERNELS_PTX);
    // A module of the case's own, for read_global / write_global and to drop after the fault.
    let module = gpu.load_ptx(&ptx)?;
    let done = gpu.zeros::<u32>(1)?;
    let writer = module.kernel("misuse_fault_write")?;
    let launch_control = |gpu: &Device| -> ptx_sync_host::Result<()> {
        // SAFETY: misuse_fault_write(ptr, value) to a live one-word buffer.
        unsafe {
            gpu.launch_builder(&writer)
                .arg(&done)
                .arg(1u32)
                .launch(one_thread())
        }?;
        gpu.wait(TIMEOUT)
    };
    launch_control(gpu).map_err(|e| format!("the control launch failed: {e}"))?;
    if gpu.download(&done)? != [1] {
        return Err("the control launch did not write its word".into());
    }
    match fault {
        Fault::Kernel(name) => {
            let k = ctx.kernel(name)?;
            // SAFETY: (control: u32, done: *mut u32).
            unsafe {
                gpu.launch_builder(&k)
                    .arg(0u32)
                    .arg(&done)
                    .launch(one_thread())
            }?;
        }
        // SAFETY: the kernel takes (ptr, value); the bad address is the point.
        Fault::Write(addr) => unsafe {
            gpu.launch_builder(&writer)
                .arg(addr)
                .arg(7u32)
                .launch(one_thread())
        }?,
    }
    let r = gpu.wait(TIMEOUT);
    if !is_code(&r, code) {
        return Err(format!(
            "wait after the fault: expected {code:?}, got {}",
            verdict(&r)
        )
        .into());
    }
    let mut bad = Vec::new();
    let mut slowest = (String::new(), Duration::ZERO);
    let mut calls = 0;
    let mut call = |what: &str, f: &mut dyn FnMut() -> String| {
        calls += 1;
        let start = Instant::now();
        let r = catch_unwind(AssertUnwindSafe(&mut *f));
        let took = start.elapsed();
        match r {
            Err(_) => bad.push(format!("{what} panicked")),
            Ok(v) if v != format!("{code:?}") => {
                bad.push(format!("{what}: expected {code:?}, got {v}"))
            }
            Ok(_) => {}
        }
        if took > super::misuse_stuck::PROMPT {
            bad.push(format!("{what} took {:.2} s", took.as_secs_f64()));
        }
        if took >= slowest.1 {
            slowest = (what.to_string(), took);
        }
    };
    call("wait again", &mut || verdict(&gpu.wait(TIMEOUT)));
    call("download", &mut || verdict(&gpu.download(&done)));
    call("upload", &mut || verdict(&gpu.upload(&[1u32])));
    call("zeros", &mut || verdict(&gpu.zeros::<u32>(1)));
    call("read_global", &mut || {
        verdict(&module.read_global::<u32>(gpu, GLOBAL))
    });
    call("write_global", &mut || {
        verdict(&module.write_global(gpu, GLOBAL, &1u32))
    });
    call("control launch + wait", &mut || {
        verdict(&launch_control(gpu))
    });
    call("load_ptx", &mut || verdict(&gpu.load_ptx(&ptx)));
    call("with_new_stream", &mut || verdict(&gpu.with_new_stream()));
    call("Device::open(0)", &mut || verdict(&Device::open(0)));
    call("MappedBuffer::new", &mut || {
        verdict(&MappedBuffer::<u32>::new(gpu, 1))
    });
    if !bad.is_empty() {
        return Err(format!("after the fault: {}", bad.join("; ")).into());
    }
    let (slow_call, slow) = slowest;
    let mut dropped = Duration::ZERO;
    dropped += super::misuse_stuck::timed_drop("the kernel", writer)?;
    dropped += super::misuse_stuck::timed_drop("the module", module)?;
    dropped += super::misuse_stuck::timed_drop("the buffer", done)?;
    Ok(format!(
        "wait: {code:?}; then {calls} calls answered {code:?} (the slowest, {slow_call}, in {:.4} s); the kernel, module and buffer dropped in {:.4} s",
        slow.as_secs_f64(),
        dropped.as_secs_f64()
    ))
}

/// Expected: `trap` fails the launch with CUDA_ERROR_LAUNCH_FAILED (what the debug traps give
/// on an H100); then each of the 11 calls of [`fault`] answers CUDA_ERROR_LAUNCH_FAILED within
/// 1 s (as on an H100), and the drops return within 1 s.
fn trap(ctx: &Ctx) -> Result<String> {
    fault(
        ctx,
        Fault::Kernel("misuse_fault_trap"),
        CUresult::CUDA_ERROR_LAUNCH_FAILED,
    )
}

/// Expected: a kernel `panic!` (the kernel crate's panic handler prints and traps) fails as
/// `trap` does: CUDA_ERROR_LAUNCH_FAILED, then as [`trap`].
fn panic(ctx: &Ctx) -> Result<String> {
    fault(
        ctx,
        Fault::Kernel("misuse_fault_panic"),
        CUresult::CUDA_ERROR_LAUNCH_FAILED,
    )
}

/// Expected: a store through a null pointer fails with CUDA_ERROR_ILLEGAL_ADDRESS; then as
/// [`trap`] with that code.
fn null_write(ctx: &Ctx) -> Result<String> {
    fault(ctx, Fault::Write(0), CUresult::CUDA_ERROR_ILLEGAL_ADDRESS)
}

/// Expected: a store to an unmapped address (0xdead_0000_0000) fails with
/// CUDA_ERROR_ILLEGAL_ADDRESS; then as [`trap`] with that code.
fn wild_write(ctx: &Ctx) -> Result<String> {
    fault(
        ctx,
        Fault::Write(WILD),
        CUresult::CUDA_ERROR_ILLEGAL_ADDRESS,
    )
}

pub fn tests() -> Vec<GpuTest> {
    crate::cases![TIMEOUT;
        "misuse_fault_trap" => trap,
        "misuse_fault_panic" => panic,
        "misuse_fault_null_write" => null_write,
        "misuse_fault_wild_write" => wild_write,
    ]
}
