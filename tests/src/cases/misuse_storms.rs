//! Contention and careless handles: try-lock and try-acquire storms over the whole GPU, many
//! host threads on one `Device`, two `Device`s on one GPU, handles dropped while a kernel runs,
//! and a mutex guard a kernel forgot.

use super::misuse_stuck::{every_call_is_stuck, expect_timeout, launch_spin, timed_drop, SHORT};
use crate::{Ctx, GpuTest, KERNELS_PTX};
use ptx_sync_host::cudarc::driver::PushKernelArg;
use ptx_sync_host::{launch_config, Device, MappedBuffer};
use ptx_sync_testkit::{one_thread, Result};
use std::sync::atomic::Ordering::{Acquire, Release};
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(60);
/// The kernels' mutex (tests/kernels/src/misuse_storms.rs), laid out as on the GPU.
type Plain = ptx_sync::Mutex<u32, ptx_sync::Gpu>;

/// u32 words that hold a [`Plain`] (rounded up).
fn mutex_words() -> usize {
    std::mem::size_of::<Plain>().div_ceil(4)
}

/// Expected: SMs x 256 threads each call `try_lock` 64 times; the plain counter inside the
/// lock equals the number of successes exactly, there is at least one success, and the lock
/// word is 0 (free) after.
fn try_lock_storm(ctx: &Ctx) -> Result<String> {
    let (blocks, threads, iters) = (ctx.gpu.sm_count(), 256u32, 64u32);
    let kernel = ctx.kernel("misuse_try_lock_storm")?;
    let m = ctx.gpu.zeros::<u32>(mutex_words())?;
    let won = ctx.gpu.zeros::<u32>(1)?;
    // SAFETY: misuse_try_lock_storm(m, successes, iters) over live buffers.
    unsafe {
        ctx.gpu
            .launch_builder(&kernel)
            .arg(&m)
            .arg(&won)
            .arg(iters)
            .launch(launch_config(blocks, threads, 0))
    }?;
    ctx.gpu.wait(TIMEOUT)?;
    let m = ctx.gpu.download(&m)?;
    let won = ctx.gpu.download(&won)?[0];
    let counter = m[Plain::DATA_OFFSET / 4];
    if counter != won || won == 0 || m[0] != 0 {
        return Err(format!(
            "counter {counter}, successes {won} (must be equal and positive), lock word {}",
            m[0]
        )
        .into());
    }
    Ok(format!(
        "{won} of {} try_locks succeeded; the counter inside is exactly {counter}",
        blocks * threads * iters
    ))
}

/// Expected: SMs x 256 threads each call `try_acquire` on a `Semaphore<Gpu, 1>` (1 permit) 64
/// times and release after each success; the plain counter equals the successes exactly,
/// there is at least one, and the semaphore holds its 1 permit after.
fn try_acquire_storm(ctx: &Ctx) -> Result<String> {
    let (blocks, threads, iters) = (ctx.gpu.sm_count(), 256u32, 64u32);
    let kernel = ctx.kernel("misuse_try_acquire_storm")?;
    let sem = ctx.gpu.upload(&[1u32])?;
    let counter = ctx.gpu.zeros::<u32>(1)?;
    let won = ctx.gpu.zeros::<u32>(1)?;
    // SAFETY: misuse_try_acquire_storm(sem, counter, successes, iters) over live buffers.
    unsafe {
        ctx.gpu
            .launch_builder(&kernel)
            .arg(&sem)
            .arg(&counter)
            .arg(&won)
            .arg(iters)
            .launch(launch_config(blocks, threads, 0))
    }?;
    ctx.gpu.wait(TIMEOUT)?;
    let (sem, counter, won) = (
        ctx.gpu.download(&sem)?[0],
        ctx.gpu.download(&counter)?[0],
        ctx.gpu.download(&won)?[0],
    );
    if counter != won || won == 0 || sem != 1 {
        return Err(format!(
            "counter {counter}, successes {won} (must be equal and positive), permits after {sem} (expected 1)"
        )
        .into());
    }
    Ok(format!(
        "{won} of {} try_acquires succeeded; the counter inside is exactly {counter}",
        blocks * threads * iters
    ))
}

/// Expected: 8 host threads share one `Device`; each launches `misuse_fault_write` 100 times
/// into its own word (value thread * 1000 + round) and downloads it after each launch: every
/// download is exactly its own value, 800 in all.
fn many_host_threads(ctx: &Ctx) -> Result<String> {
    let writer = ctx.kernel("misuse_fault_write")?;
    let gpu = &ctx.gpu;
    let results: Vec<std::result::Result<u32, String>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8u32)
            .map(|t| {
                let writer = &writer;
                s.spawn(move || -> std::result::Result<u32, String> {
                    let out = gpu.zeros::<u32>(1).map_err(|e| e.to_string())?;
                    let mut exact = 0;
                    for r in 0..100u32 {
                        let v = t * 1000 + r;
                        // SAFETY: misuse_fault_write(ptr, value) to this thread's word.
                        unsafe {
                            gpu.launch_builder(writer)
                                .arg(&out)
                                .arg(v)
                                .launch(one_thread())
                        }
                        .map_err(|e| format!("thread {t} round {r}: {e}"))?;
                        let got = gpu.download(&out).map_err(|e| e.to_string())?;
                        if got != [v] {
                            return Err(format!("thread {t} round {r}: {got:?}, expected [{v}]"));
                        }
                        exact += 1;
                    }
                    Ok(exact)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("a host thread panicked".into()))
            })
            .collect()
    });
    let mut total = 0;
    for r in results {
        total += r?;
    }
    if total != 800 {
        return Err(format!("{total} exact downloads, expected 800").into());
    }
    Ok("8 host threads x 100 launch + download on one Device: 800 exact".into())
}

/// Expected: `Device::open(0)` twice; each launches `misuse_spin_until_set` on its own mapped
/// word; dropping the first handle while both kernels run returns within 1 s; after the host
/// writes both words, `wait(30 s)` on the survivor is `Ok`, both done words are 1, and a
/// launch + download on the survivor is exact.
fn two_devices_one_gpu(ctx: &Ctx) -> Result<String> {
    let first = Device::open(0)?;
    let second = Device::open(0)?;
    let spin = ctx.kernel("misuse_spin_until_set")?;
    let buf = MappedBuffer::<u32>::new(&ctx.gpu, 128)?;
    let w = buf.atomics_u32();
    let at = |i: u64| buf.device_ptr() + 4 * i;
    // SAFETY: two u32 pointers into the mapped buffer, which outlives both kernels.
    unsafe { launch_spin(&first, &spin, at(0), at(32)) }?;
    // SAFETY: as above.
    unsafe { launch_spin(&second, &spin, at(64), at(96)) }?;
    let dropped = timed_drop("the first Device while its kernel runs", first)?;
    w[0].store(1, Release);
    w[64].store(1, Release);
    second.wait(Duration::from_secs(30))?;
    if w[32].load(Acquire) != 1 || w[96].load(Acquire) != 1 {
        return Err("a kernel ended without setting its done word".into());
    }
    let writer = ctx.kernel("misuse_fault_write")?;
    let out = second.zeros::<u32>(1)?;
    // SAFETY: misuse_fault_write(ptr, value) to a live word.
    unsafe {
        second
            .launch_builder(&writer)
            .arg(&out)
            .arg(77u32)
            .launch(one_thread())
    }?;
    let got = second.download(&out)?;
    if got != [77] {
        return Err(format!("the survivor downloaded {got:?}, expected [77]").into());
    }
    Ok(format!(
        "the first handle dropped in {:.4} s while its kernel ran; the survivor waited Ok and its launch was exact",
        dropped.as_secs_f64()
    ))
}

/// Expected: a second handle loads the module, allocates a device word and launches
/// `misuse_spin_until_set` on a mapped word (its done word in that device word); the kernel,
/// the module (its unload is left for a later call that finds the GPU idle), the device word
/// and the handle each drop within 1 s while the kernel runs; after the host writes the mapped
/// word, `wait(30 s)` on the suite's handle (same GPU, same stream) is `Ok`.
fn drops_while_a_kernel_runs(ctx: &Ctx) -> Result<String> {
    let gpu = Device::open(0)?;
    let module = gpu.load_ptx(ctx.ptx_dir.join(KERNELS_PTX))?;
    let spin = module.kernel("misuse_spin_until_set")?;
    let done = gpu.zeros::<u32>(1)?;
    let buf = MappedBuffer::<u32>::new(&ctx.gpu, 32)?;
    // SAFETY: (word, done): a mapped word that outlives the kernel, and a device word whose
    // free is ordered after the kernel on the stream.
    unsafe {
        gpu.launch_builder(&spin)
            .arg(&buf)
            .arg(&done)
            .launch(one_thread())
    }?;
    let took = [
        ("kernel", timed_drop("the kernel", spin)?),
        ("module", timed_drop("the module", module)?),
        ("device word", timed_drop("the device word", done)?),
        ("Device", timed_drop("the Device", gpu)?),
    ];
    buf.atomics_u32()[0].store(1, Release);
    ctx.gpu
        .wait(Duration::from_secs(30))
        .map_err(|e| format!("the survivor's wait after the host wrote the word: {e}"))?;
    let shown: Vec<String> = took
        .iter()
        .map(|(w, d)| format!("{w} {:.3} s", d.as_secs_f64()))
        .collect();
    Ok(format!(
        "dropped while the kernel ran: {}; the survivor waited Ok once the host wrote the word",
        shown.join(", ")
    ))
}

/// Expected: a kernel that forgets a `Mutex` guard finishes (`wait` Ok, done 1); a later
/// `try_lock` fails (out 2); a `lock()` then never returns: `wait(500 ms)` is
/// `Error::Timeout { gpu: 0 }`, every call is `Error::Stuck` within 1 s, and the process exits
/// promptly.
fn forgotten_guard(ctx: &Ctx) -> Result<String> {
    let module = ctx.gpu.load_ptx(ctx.ptx_dir.join(KERNELS_PTX))?;
    let spin = module.kernel("misuse_spin_until_set")?;
    let m = ctx.gpu.zeros::<u32>(mutex_words())?;
    let out = ctx.gpu.zeros::<u32>(3)?;
    let (forget, try_once, lock_once) = (
        module.kernel("misuse_forget_guard")?,
        module.kernel("misuse_try_lock_once")?,
        module.kernel("misuse_lock_once")?,
    );
    // SAFETY: (mutex, out) over live buffers, for each of the three kernels.
    unsafe {
        ctx.gpu
            .launch_builder(&forget)
            .arg(&m)
            .arg(&out)
            .launch(one_thread())
    }?;
    ctx.gpu.wait(TIMEOUT)?;
    let out1 = ctx.gpu.zeros::<u32>(1)?;
    unsafe {
        ctx.gpu
            .launch_builder(&try_once)
            .arg(&m)
            .arg(&out1)
            .launch(one_thread())
    }?;
    ctx.gpu.wait(TIMEOUT)?;
    let (done, tried) = (ctx.gpu.download(&out)?[0], ctx.gpu.download(&out1)?[0]);
    if done != 1 || tried != 2 {
        return Err(format!(
            "forget_guard done {done} (expected 1), try_lock after it {tried} (expected 2: failed)"
        )
        .into());
    }
    let out2 = ctx.gpu.zeros::<u32>(1)?;
    unsafe {
        ctx.gpu
            .launch_builder(&lock_once)
            .arg(&m)
            .arg(&out2)
            .launch(one_thread())
    }?;
    let start = Instant::now();
    expect_timeout(ctx.gpu.wait(SHORT), SHORT)?;
    let calls = every_call_is_stuck(ctx, &module, &spin, &out)?;
    Ok(format!(
        "the forgotten guard kept the lock: try_lock failed, lock() timed out after {:.2} s; {calls}",
        start.elapsed().as_secs_f64()
    ))
}

pub fn tests() -> Vec<GpuTest> {
    crate::cases![TIMEOUT;
        "misuse_try_lock_storm" => try_lock_storm,
        "misuse_try_acquire_storm" => try_acquire_storm,
        "misuse_many_host_threads_one_device" => many_host_threads,
        "misuse_two_devices_one_gpu" => two_devices_one_gpu,
        "misuse_drops_while_a_kernel_runs" => drops_while_a_kernel_runs,
        "misuse_forgotten_guard" => forgotten_guard,
    ]
}
