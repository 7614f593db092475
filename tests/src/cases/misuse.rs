//! Misuse: a kernel deadlocked on a latch nobody opens is caught (by `Device::wait`'s limit in
//! the process, and by the runner's watchdog with the test's name), and a debug build of the
//! primitives traps on a semaphore released past MAX, on a latch counted below zero and on a
//! barrier, latch, mutex, ticket lock, semaphore, rwlock, queue or block barrier in local memory
//! (tests/kernels builds ptx-sync with `debug-assertions = true`).

use crate::{Ctx, GpuTest};
use ptx_sync_host::cudarc::driver::{CudaSlice, PushKernelArg};
use ptx_sync_host::{Error, MappedBuffer};
use ptx_sync_testkit::{one_thread, Result};
use std::sync::atomic::Ordering::{Acquire, Release};
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(30);

/// A kernel waits with `wait()` on a `Latch<Sys>` in mapped memory that nobody counts down:
/// `Device::wait` must give up with `Error::Timeout` while the kernel is stuck; once the host opens
/// the latch, the same kernel must finish (so it was the latch that held it).
fn latch_deadlock_times_out(ctx: &Ctx) -> Result<String> {
    let limit = Duration::from_millis(500);
    let kernel = ctx.kernel("misuse_latch_never_opened")?;
    let buf = MappedBuffer::<u32>::new(&ctx.gpu, 64)?;
    let words = buf.atomics_u32();
    words[0].store(1, Release); // the latch expects one arrival that never comes
    let (latch, passed) = (buf.device_ptr(), buf.device_ptr() + 128);
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(&latch).arg(&passed);
    let start = Instant::now();
    unsafe { b.launch(one_thread()) }.map_err(|e| format!("launch: {e}"))?;
    match ctx.gpu.wait(limit) {
        Err(Error::Timeout { .. }) => {}
        Err(e) => return Err(format!("expected a timeout, got: {e}").into()),
        Ok(()) => return Err("a wait() on a latch that never opened returned".into()),
    }
    let stuck = start.elapsed();
    if words[32].load(Acquire) != 0 {
        return Err("the kernel passed a latch that never opened".into());
    }
    words[0].store(0, Release); // open it
    ctx.gpu
        .wait(TIMEOUT)
        .map_err(|e| format!("after the host opened the latch: {e}"))?;
    if words[32].load(Acquire) != 1 {
        return Err("the kernel finished without passing the latch".into());
    }
    Ok(format!(
        "Device::wait gave Timeout after {:.2} s while the kernel waited on a closed latch; it finished once the host opened the latch",
        stuck.as_secs_f64()
    ))
}

/// Hidden: deadlocks for good (a latch of 1 in device memory, never counted down).
fn latch_deadlock(ctx: &Ctx) -> Result<String> {
    let kernel = ctx.kernel("misuse_latch_never_opened")?;
    let latch = ctx.gpu.upload(&[1u32])?;
    let passed = ctx.gpu.zeros::<u32>(1)?;
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(&latch).arg(&passed);
    unsafe { ctx.launch_and_wait(b, one_thread(), Duration::from_secs(600)) }?;
    Err("the deadlocked kernel finished".into())
}

/// Runs the hidden `__latch_deadlock` in a child runner with a 2 s limit: the runner's
/// watchdog must kill it and report `TIMEOUT __latch_deadlock`.
fn deadlock_reported_by_watchdog(ctx: &Ctx) -> Result<String> {
    let took = crate::runner::hidden_test_times_out(&ctx.ptx_dir, "__latch_deadlock")?;
    Ok(format!(
        "a latch wait() that never opens reported as `TIMEOUT __latch_deadlock` in {:.1} s",
        took.as_secs_f64()
    ))
}

/// Runs `kernel(word, extra, done)` on one thread and returns the driver's verdict.
fn misuse_launch(
    ctx: &Ctx,
    kernel: &str,
    word: &CudaSlice<u32>,
    extra: u32,
    done: &CudaSlice<u32>,
) -> Result<Result<(), Error>> {
    let kernel = ctx.kernel(kernel)?;
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(word).arg(&extra).arg(done);
    unsafe { b.launch(one_thread()) }.map_err(|e| format!("launch: {e}"))?;
    Ok(ctx.gpu.wait(TIMEOUT))
}

/// The control (`extra = 0`) must finish with `final_word`; the misuse (`extra = 1`) must make
/// the launch fail with a driver error (the trap).
pub(crate) fn traps(
    ctx: &Ctx,
    kernel: &str,
    initial: u32,
    final_word: u32,
    what: &str,
) -> Result<String> {
    traps_with(ctx, kernel, initial, final_word, 1, what)
}

/// [`traps`] with the misuse's `extra` given: for a kernel whose `extra` selects one of several
/// misuses (0 is still the control).
pub(crate) fn traps_with(
    ctx: &Ctx,
    kernel: &str,
    initial: u32,
    final_word: u32,
    extra: u32,
    what: &str,
) -> Result<String> {
    let word = ctx.gpu.upload(&[initial])?;
    let done = ctx.gpu.zeros::<u32>(1)?;
    misuse_launch(ctx, kernel, &word, 0, &done)?
        .map_err(|e| format!("the control launch failed: {e}"))?;
    let (w, d) = (ctx.gpu.download(&word)?[0], ctx.gpu.download(&done)?[0]);
    if w != final_word || d != 1 {
        return Err(
            format!("control: word {w} (expected {final_word}), done {d} (expected 1)").into(),
        );
    }
    let word = ctx.gpu.upload(&[initial])?;
    let done = ctx.gpu.zeros::<u32>(1)?;
    match misuse_launch(ctx, kernel, &word, extra, &done)? {
        Err(e @ Error::Driver { .. }) => Ok(format!(
            "the control ran clean; {what} failed the launch: {e}"
        )),
        Err(e) => Err(format!("expected a trap, got: {e}").into()),
        Ok(()) => {
            Err(format!("{what} was not caught (is ptx-sync built with debug-assertions?)").into())
        }
    }
}

/// `misuse_primitive_in_local_memory(latch = 1, which, done)`: the control (`which = 0`) ends
/// with the latch at 0 and done 1; `which` puts one primitive in a kernel local, which must trap.
fn local_trap(ctx: &Ctx, which: u32, what: &str) -> Result<String> {
    traps_with(ctx, "misuse_primitive_in_local_memory", 1, 0, which, what)
}

/// Expected: the control launch ends with the latch at 0 and done 1; a `Latch<Gpu>` as a
/// kernel local counted down fails the launch with a driver error (the debug build's trap).
fn latch_in_local_memory(ctx: &Ctx) -> Result<String> {
    local_trap(
        ctx,
        1,
        "a Latch<Gpu> in local memory (a kernel's local variable)",
    )
}

/// Expected: the control launch ends with the latch at 0 and done 1; a `Mutex<u32, Gpu>` as a
/// kernel local locked fails the launch with a driver error (the debug build's trap).
fn mutex_in_local_memory(ctx: &Ctx) -> Result<String> {
    local_trap(
        ctx,
        2,
        "a Mutex<u32, Gpu> in local memory (a kernel's local variable)",
    )
}

/// Expected: the control launch ends with the latch at 0 and done 1; a `TicketLock<u32, Gpu>`
/// as a kernel local locked fails the launch with a driver error (the debug build's trap).
fn ticket_lock_in_local_memory(ctx: &Ctx) -> Result<String> {
    local_trap(
        ctx,
        3,
        "a TicketLock<u32, Gpu> in local memory (a kernel's local variable)",
    )
}

/// Expected: the control launch ends with the latch at 0 and done 1; a `Semaphore<Gpu>` of one
/// unit as a kernel local acquired fails the launch with a driver error (the debug build's trap).
fn semaphore_in_local_memory(ctx: &Ctx) -> Result<String> {
    local_trap(
        ctx,
        4,
        "a Semaphore<Gpu> in local memory (a kernel's local variable)",
    )
}

/// Expected: the control launch ends with the latch at 0 and done 1; an `RwLock<u32, Gpu>` as a
/// kernel local write-locked fails the launch with a driver error (the debug build's trap).
fn rwlock_in_local_memory(ctx: &Ctx) -> Result<String> {
    local_trap(
        ctx,
        5,
        "an RwLock<u32, Gpu> in local memory (a kernel's local variable)",
    )
}

/// Expected: the control launch ends with the latch at 0 and done 1; a `Queue<u32, 4, Gpu>` as
/// a kernel local pushed to fails the launch with a driver error (the debug build's trap).
fn queue_in_local_memory(ctx: &Ctx) -> Result<String> {
    local_trap(
        ctx,
        6,
        "a Queue<u32, 4, Gpu> in local memory (a kernel's local variable)",
    )
}

/// Expected: the control launch ends with the latch at 0 and done 1; a `BlockBarrier` over a
/// kernel local `u64` (`from_ptr`, then `init(1)`) fails the launch with a driver error: the
/// debug build traps because `mbarrier` needs a `.shared::cta` address (kernels built for sm_80
/// or later; an older build has no `BlockBarrier`, and the case fails as not caught).
fn block_barrier_in_local_memory(ctx: &Ctx) -> Result<String> {
    local_trap(
        ctx,
        7,
        "a BlockBarrier in local memory (a kernel's local variable)",
    )
}

pub fn tests() -> Vec<GpuTest> {
    vec![
        GpuTest {
            name: "misuse_latch_never_opened_times_out",
            timeout: TIMEOUT,
            run: latch_deadlock_times_out,
        },
        GpuTest {
            name: "misuse_deadlock_reported_by_watchdog",
            timeout: Duration::from_secs(60),
            run: deadlock_reported_by_watchdog,
        },
        GpuTest {
            name: "misuse_semaphore_over_release_traps",
            timeout: TIMEOUT,
            run: |ctx| {
                traps(
                    ctx,
                    "misuse_semaphore_over_release",
                    0,
                    1,
                    "releasing Semaphore<Gpu, 1> past MAX",
                )
            },
        },
        GpuTest {
            name: "misuse_latch_count_below_zero_traps",
            timeout: TIMEOUT,
            run: |ctx| {
                traps(
                    ctx,
                    "misuse_latch_count_below_zero",
                    1,
                    0,
                    "counting a latch below zero",
                )
            },
        },
        GpuTest {
            name: "misuse_barrier_in_local_memory_traps",
            timeout: TIMEOUT,
            run: |ctx| {
                traps(
                    ctx,
                    "misuse_barrier_in_local_memory",
                    1,
                    0,
                    "a Barrier<Gpu> in local memory (a kernel's local variable)",
                )
            },
        },
        GpuTest {
            name: "misuse_semaphore_init_above_max_traps",
            timeout: TIMEOUT,
            run: |ctx| {
                traps(
                    ctx,
                    "misuse_semaphore_init_above_max",
                    0,
                    1,
                    "Semaphore<Gpu, 1>::init(2) (an always-on check)",
                )
            },
        },
        GpuTest {
            name: "misuse_block_barrier_init_zero_traps",
            timeout: TIMEOUT,
            run: |ctx| {
                traps(
                    ctx,
                    "misuse_block_barrier_init_zero",
                    1,
                    0,
                    "BlockBarrier::init(0)",
                )
            },
        },
        GpuTest {
            name: "misuse_block_barrier_in_global_memory_traps",
            timeout: TIMEOUT,
            run: |ctx| {
                traps(
                    ctx,
                    "misuse_block_barrier_in_global_memory",
                    1,
                    0,
                    "a BlockBarrier in global memory",
                )
            },
        },
        GpuTest {
            name: "misuse_latch_in_local_memory_traps",
            timeout: TIMEOUT,
            run: latch_in_local_memory,
        },
        GpuTest {
            name: "misuse_mutex_in_local_memory_traps",
            timeout: TIMEOUT,
            run: mutex_in_local_memory,
        },
        GpuTest {
            name: "misuse_ticket_lock_in_local_memory_traps",
            timeout: TIMEOUT,
            run: ticket_lock_in_local_memory,
        },
        GpuTest {
            name: "misuse_semaphore_in_local_memory_traps",
            timeout: TIMEOUT,
            run: semaphore_in_local_memory,
        },
        GpuTest {
            name: "misuse_rwlock_in_local_memory_traps",
            timeout: TIMEOUT,
            run: rwlock_in_local_memory,
        },
        GpuTest {
            name: "misuse_queue_in_local_memory_traps",
            timeout: TIMEOUT,
            run: queue_in_local_memory,
        },
        GpuTest {
            name: "misuse_block_barrier_in_local_memory_traps",
            timeout: TIMEOUT,
            run: block_barrier_in_local_memory,
        },
        GpuTest {
            name: "__latch_deadlock",
            timeout: Duration::from_secs(30),
            run: latch_deadlock,
        },
    ]
}
