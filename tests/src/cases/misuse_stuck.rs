//! A kernel that never finishes: after `Device::wait` runs out, the GPU is stuck, and every call
//! that would give it work, copy behind it or wait for it must answer `Error::Stuck` at once
//! (never block, never panic); drops must not block either, and the process must exit promptly
//! after its result (the runner checks that for every case). Where the stuck kernel can still
//! end (it spins on a mapped word the host then writes), the GPU must be usable again.

use crate::{Ctx, GpuTest, KERNELS_PTX};
use ptx_sync_host::cudarc::driver::{CudaSlice, PushKernelArg};
use ptx_sync_host::{
    launch_config, Device, Error, Kernel, ManagedBuffer, MappedBuffer, Module, PortableBuffer,
};
use ptx_sync_testkit::{one_thread, Result};
use std::sync::atomic::Ordering::{Acquire, Release};
use std::time::{Duration, Instant};

/// The runner's limit for each case: a case that blocks shows as a TIMEOUT, not a hung suite.
const TIMEOUT: Duration = Duration::from_secs(30);
/// How long the cases let a never-ending kernel run before giving up on it.
pub(crate) const SHORT: Duration = Duration::from_millis(500);
/// The most any call on a stuck GPU, or any drop, may take: it must answer at once.
pub(crate) const PROMPT: Duration = Duration::from_secs(1);
/// The global every read_global / write_global here uses (tests/kernels/src/host_api.rs).
const GLOBAL: &str = "HOST_API_COUNTER";

/// Launches `misuse_spin_until_set(word, done)` on one thread of `gpu`: it spins until the
/// `u32` at `word` is not 0, then sets the `u32` at `done` to 1.
///
/// # Safety
/// `word` and `done` are device addresses of `u32`s that outlive the kernel.
pub(crate) unsafe fn launch_spin(gpu: &Device, spin: &Kernel, word: u64, done: u64) -> Result<()> {
    // SAFETY: the kernel takes two u32 pointers; the caller's contract.
    unsafe {
        gpu.launch_builder(spin)
            .arg(word)
            .arg(done)
            .launch(one_thread())
    }?;
    Ok(())
}

/// `r` must be `Error::Timeout` for GPU 0 after `limit`; `Ok` holds how long the wait took.
pub(crate) fn expect_timeout(r: ptx_sync_host::Result<()>, limit: Duration) -> Result<()> {
    match r {
        Err(Error::Timeout {
            gpu: 0, limit: l, ..
        }) if l == limit => Ok(()),
        Err(e) => {
            Err(format!("expected Error::Timeout naming GPU 0 after {limit:?}, got: {e}").into())
        }
        Ok(()) => Err("the wait for a kernel that never finishes returned Ok".into()),
    }
}

/// Times `call`, which must answer `Error::Stuck` for GPU 0 within [`PROMPT`]; a mismatch is
/// added to `bad`. Returns how long it took.
fn stuck_call<T>(
    bad: &mut Vec<String>,
    what: &str,
    call: impl FnOnce() -> ptx_sync_host::Result<T>,
) -> Duration {
    let start = Instant::now();
    let r = call();
    let took = start.elapsed();
    match r {
        Err(Error::Stuck { gpu: 0, .. }) => {}
        Err(e) => bad.push(format!("{what}: expected Error::Stuck, got: {e}")),
        Ok(_) => bad.push(format!("{what}: expected Error::Stuck, got Ok")),
    }
    if took > PROMPT {
        bad.push(format!("{what}: took {:.2} s", took.as_secs_f64()));
    }
    took
}

/// How many calls [`every_call_is_stuck`] makes.
const STUCK_CALLS: usize = 12;

/// Every call on a stuck GPU 0 must be `Error::Stuck` within [`PROMPT`]: download, upload,
/// read_global, write_global, with_new_stream, zeros, load_ptx, launch (of `spin`, which takes
/// two u32 pointers), Device::open(0), MappedBuffer::new, ManagedBuffer::new and
/// PortableBuffer::new ([`STUCK_CALLS`] in all; each buffer asks the watchdog before the
/// driver, so a GPU without concurrent managed access answers `Stuck` too). `Ok` says how many
/// and how long each took; `Err` lists every call that did otherwise.
pub(crate) fn every_call_is_stuck(
    ctx: &Ctx,
    module: &Module,
    spin: &Kernel,
    buf: &CudaSlice<u32>,
) -> Result<String> {
    let gpu = &ctx.gpu;
    let mut bad = Vec::new();
    let mut times: Vec<(&str, Duration)> = Vec::new();
    let mut t = |what, took| times.push((what, took));
    t(
        "download",
        stuck_call(&mut bad, "download", || gpu.download(buf)),
    );
    t(
        "upload",
        stuck_call(&mut bad, "upload", || gpu.upload(&[1u32])),
    );
    t(
        "read_global",
        stuck_call(&mut bad, "read_global", || {
            module.read_global::<u32>(gpu, GLOBAL)
        }),
    );
    t(
        "write_global",
        stuck_call(&mut bad, "write_global", || {
            module.write_global(gpu, GLOBAL, &0u32)
        }),
    );
    t(
        "with_new_stream",
        stuck_call(&mut bad, "with_new_stream", || gpu.with_new_stream()),
    );
    t(
        "zeros",
        stuck_call(&mut bad, "zeros", || gpu.zeros::<u32>(1)),
    );
    let ptx = ctx.ptx_dir.join(KERNELS_PTX);
    t(
        "load_ptx",
        stuck_call(&mut bad, "load_ptx", || gpu.load_ptx(&ptx)),
    );
    t(
        "launch",
        stuck_call(&mut bad, "launch", || {
            // SAFETY: the kernel takes two u32 pointers; `buf` outlives the launch.
            unsafe {
                gpu.launch_builder(spin)
                    .arg(buf)
                    .arg(buf)
                    .launch(one_thread())
            }
        }),
    );
    t(
        "Device::open(0)",
        stuck_call(&mut bad, "Device::open(0)", || Device::open(0)),
    );
    t(
        "MappedBuffer::new",
        stuck_call(&mut bad, "MappedBuffer::new", || {
            MappedBuffer::<u32>::new(gpu, 1)
        }),
    );
    t(
        "ManagedBuffer::new",
        stuck_call(&mut bad, "ManagedBuffer::new", || {
            ManagedBuffer::<u32>::new(gpu, 1)
        }),
    );
    t(
        "PortableBuffer::new",
        stuck_call(&mut bad, "PortableBuffer::new", || {
            PortableBuffer::<u32>::new([gpu], 1)
        }),
    );
    if times.len() != STUCK_CALLS {
        bad.push(format!(
            "checked {} calls, expected {STUCK_CALLS}",
            times.len()
        ));
    }
    if !bad.is_empty() {
        return Err(format!("on a stuck GPU: {}", bad.join("; ")).into());
    }
    let each: Vec<String> = times
        .iter()
        .map(|(what, took)| format!("{what} {:.4} s", took.as_secs_f64()))
        .collect();
    Ok(format!(
        "{} calls answered Error::Stuck ({})",
        times.len(),
        each.join(", ")
    ))
}

/// Times dropping `what`, which must return within [`PROMPT`].
pub(crate) fn timed_drop<T>(name: &str, what: T) -> Result<Duration> {
    let start = Instant::now();
    drop(what);
    let took = start.elapsed();
    if took > PROMPT {
        return Err(format!("dropping {name} took {:.2} s", took.as_secs_f64()).into());
    }
    Ok(took)
}

/// The module of tests/kernels loaded again (a handle of the case's own, so that it can be
/// dropped) and its `misuse_spin_until_set`.
fn own_module(ctx: &Ctx) -> Result<(Module, Kernel)> {
    let module = ctx.gpu.load_ptx(ctx.ptx_dir.join(KERNELS_PTX))?;
    let spin = module.kernel("misuse_spin_until_set")?;
    Ok((module, spin))
}

/// After the Timeout: every call is Stuck, then every handle the case made is dropped. `Ok`
/// says so, with the time from the Timeout to the end.
fn stuck_then_drop(
    ctx: &Ctx,
    timed_out: Instant,
    module: Module,
    spin: Kernel,
    bufs: Vec<CudaSlice<u32>>,
) -> Result<String> {
    let calls = every_call_is_stuck(ctx, &module, &spin, &bufs[0])?;
    let mut dropped = Duration::ZERO;
    dropped += timed_drop("the kernel", spin)?;
    dropped += timed_drop("the module", module)?;
    dropped += timed_drop("the device buffers", bufs)?;
    Ok(format!(
        "{calls}; the kernel, module and buffers dropped in {:.4} s; {:.2} s from the Timeout to the end of the test",
        dropped.as_secs_f64(),
        timed_out.elapsed().as_secs_f64()
    ))
}

/// Expected: a kernel spinning on a device word nobody writes makes `wait(500 ms)` answer
/// `Error::Timeout { gpu: 0, limit: 500 ms }`; then download, upload, read_global,
/// write_global, with_new_stream, zeros, load_ptx, launch, Device::open(0),
/// MappedBuffer::new, ManagedBuffer::new and PortableBuffer::new (12 calls) each answer
/// `Error::Stuck { gpu: 0 }` within 1 s; dropping the kernel, the module and the buffers returns
/// within 1 s; the case passes and its process exits within the runner's bound.
fn stuck_gpu_refuses_every_call(ctx: &Ctx) -> Result<String> {
    let (module, spin) = own_module(ctx)?;
    let word = ctx.gpu.zeros::<u32>(1)?;
    let done = ctx.gpu.zeros::<u32>(1)?;
    // SAFETY: the kernel takes two u32 pointers; both buffers outlive it (leaked when stuck).
    unsafe {
        ctx.gpu
            .launch_builder(&spin)
            .arg(&word)
            .arg(&done)
            .launch(one_thread())
    }?;
    expect_timeout(ctx.gpu.wait(SHORT), SHORT)?;
    let timed_out = Instant::now();
    stuck_then_drop(ctx, timed_out, module, spin, vec![word, done])
}

/// Expected: a kernel spinning on a mapped word makes `wait(500 ms)` answer `Error::Timeout`,
/// and `zeros` then `Error::Stuck`; once the host writes the word, `wait(30 s)` is `Ok`, the
/// kernel's done word is 1, `usable()` is `Ok`, and a new launch of the same kernel on a word
/// already set finishes and downloads `[1]`.
fn stuck_gpu_recovers_when_the_kernel_ends(ctx: &Ctx) -> Result<String> {
    let (_module, spin) = own_module(ctx)?;
    let buf = MappedBuffer::<u32>::new(&ctx.gpu, 64)?;
    let words = buf.atomics_u32();
    let (word, done) = (buf.device_ptr(), buf.device_ptr() + 128);
    // SAFETY: the kernel takes two u32 pointers into the mapped buffer, which outlives it.
    unsafe { launch_spin(&ctx.gpu, &spin, word, done) }?;
    expect_timeout(ctx.gpu.wait(SHORT), SHORT)?;
    match ctx.gpu.zeros::<u32>(1) {
        Err(Error::Stuck { gpu: 0, .. }) => {}
        Err(e) => {
            return Err(format!("zeros on the stuck GPU: expected Error::Stuck, got: {e}").into())
        }
        Ok(_) => return Err("zeros on the stuck GPU: expected Error::Stuck, got Ok".into()),
    }
    words[0].store(1, Release);
    let start = Instant::now();
    ctx.gpu
        .wait(TIMEOUT)
        .map_err(|e| format!("wait after the host set the word: {e}"))?;
    let ended = start.elapsed();
    if words[32].load(Acquire) != 1 {
        return Err("the kernel ended without setting its done word".into());
    }
    ctx.gpu
        .usable()
        .map_err(|e| format!("the GPU is not usable after the stuck kernel ended: {e}"))?;
    let set = ctx.gpu.upload(&[1u32])?;
    let done2 = ctx.gpu.zeros::<u32>(1)?;
    // SAFETY: as above, device buffers this time.
    unsafe {
        ctx.gpu
            .launch_builder(&spin)
            .arg(&set)
            .arg(&done2)
            .launch(one_thread())
    }
    .map_err(|e| format!("launch after recovery: {e}"))?;
    ctx.gpu
        .wait(TIMEOUT)
        .map_err(|e| format!("wait after recovery: {e}"))?;
    let got = ctx.gpu.download(&done2)?;
    if got != [1] {
        return Err(format!("after recovery the kernel wrote {got:?}, expected [1]").into());
    }
    Ok(format!(
        "Timeout, then Stuck; the kernel ended {:.3} s after the host wrote the mapped word; a launch and download worked after",
        ended.as_secs_f64()
    ))
}

/// Expected: `host_api_grid_rounds` (which syncs a `GridBarrier`) launched plainly with twice
/// the blocks that can be resident at once, plus one, never finishes (the resident blocks wait
/// at the barrier for blocks that cannot start): `wait(2 s)` is `Error::Timeout { gpu: 0 }`,
/// then every call is `Error::Stuck` within 1 s, the drops return within 1 s, and the process
/// exits promptly.
fn grid_barrier_in_a_plain_launch(ctx: &Ctx) -> Result<String> {
    let (module, spin) = own_module(ctx)?;
    let grid = module.kernel("host_api_grid_rounds")?;
    let threads = 256;
    let limit = ctx.gpu.cooperative_limit(&grid, threads, 0)?;
    let blocks = limit.max_blocks * 2 + 1;
    let bar = ctx.gpu.zeros::<u32>(1)?;
    let counts = ctx.gpu.zeros::<u32>(1)?;
    let errors = ctx.gpu.zeros::<u32>(1)?;
    // SAFETY: host_api_grid_rounds(bar, counts, rounds, errors) with one round.
    unsafe {
        ctx.gpu
            .launch_builder(&grid)
            .arg(&bar)
            .arg(&counts)
            .arg(1u32)
            .arg(&errors)
            .launch(launch_config(blocks, threads, 0))
    }?;
    let wait = Duration::from_secs(2);
    expect_timeout(ctx.gpu.wait(wait), wait)?;
    let timed_out = Instant::now();
    drop(grid);
    let rest = stuck_then_drop(ctx, timed_out, module, spin, vec![bar, counts, errors])?;
    Ok(format!(
        "a plain launch of {blocks} blocks (at most {} resident) at a GridBarrier timed out; {rest}",
        limit.max_blocks
    ))
}

/// One round of [`watchdog_bounds_every_copy`]: `misuse_spin_until_set` on `gpu`, spinning on
/// mapped word 0 of `buf`, then `call`, which must answer `Error::Timeout { gpu: 0, limit: SHORT }`
/// whose `what` contains `names`, no sooner than [`SHORT`] and within [`PROMPT`] after it; then
/// `zeros` must be `Error::Stuck`; once the host writes the word, `wait` is `Ok`, the kernel's
/// done word (word 32) is 1 and the GPU is usable. `Ok` holds how long `call` took.
fn copy_times_out(
    ctx: &Ctx,
    gpu: &Device,
    spin: &Kernel,
    buf: &MappedBuffer<u32>,
    names: &str,
    call: &mut dyn FnMut() -> ptx_sync_host::Result<()>,
) -> Result<Duration> {
    let words = buf.atomics_u32();
    words[0].store(0, Release);
    words[32].store(0, Release);
    let (word, done) = (buf.device_ptr(), buf.device_ptr() + 128);
    // SAFETY: two u32 pointers into the mapped buffer, which outlives the kernel.
    unsafe {
        gpu.launch_builder(spin)
            .arg(word)
            .arg(done)
            .launch(one_thread())
    }?;
    let start = Instant::now();
    let r = call();
    let took = start.elapsed();
    match r {
        Err(Error::Timeout {
            gpu: 0,
            limit,
            what,
        }) if limit == SHORT && what.contains(names) => {}
        Err(e) => {
            return Err(format!(
                "{names}: expected Error::Timeout naming `{names}` after {SHORT:?}, got: {e}"
            )
            .into())
        }
        Ok(()) => return Err(format!("{names}: returned Ok behind a kernel that spins").into()),
    }
    if took < SHORT || took > SHORT + PROMPT {
        return Err(format!(
            "{names}: the Timeout came after {:.3} s (limit {SHORT:?})",
            took.as_secs_f64()
        )
        .into());
    }
    match ctx.gpu.zeros::<u32>(1) {
        Err(Error::Stuck { gpu: 0, .. }) => {}
        Err(e) => {
            return Err(format!("after {names}: zeros gave {e}, expected Error::Stuck").into())
        }
        Ok(_) => return Err(format!("after {names}: zeros gave Ok, expected Error::Stuck").into()),
    }
    words[0].store(1, Release);
    gpu.wait(TIMEOUT)
        .map_err(|e| format!("after {names}: wait once the host wrote the word: {e}"))?;
    if words[32].load(Acquire) != 1 {
        return Err(format!("after {names}: the kernel ended without its done word").into());
    }
    gpu.usable()
        .map_err(|e| format!("after {names}: not usable once the kernel ended: {e}"))?;
    Ok(took)
}

/// Expected: behind a kernel spinning on a mapped word, each copy that waits for the stream
/// gives up after its limit of 500 ms with `Error::Timeout { gpu: 0, limit: 500 ms }` naming
/// what it waited for: `download_for(.., 500 ms)` ("download") and `upload_for(.., 500 ms)`
/// ("upload") on the suite's handle; on a handle with `set_watchdog(500 ms)`, `download`
/// ("download"), `upload` ("upload"), `read_global` ("reading global `HOST_API_COUNTER`") and
/// `write_global` ("writing global `HOST_API_COUNTER`"). Each Timeout comes between 0.5 and
/// 1.5 s after the call, `zeros` is then `Error::Stuck`, and once the host writes the word the
/// kernel ends and the GPU works again; after all six, `write_global(7)` then `read_global`
/// give 7.
fn watchdog_bounds_every_copy(ctx: &Ctx) -> Result<String> {
    let mut short = Device::open(0)?;
    short.set_watchdog(SHORT);
    if short.watchdog() != SHORT {
        return Err(format!("set_watchdog({SHORT:?}) left {:?}", short.watchdog()).into());
    }
    let module = short.load_ptx(ctx.ptx_dir.join(KERNELS_PTX))?;
    let spin = module.kernel("misuse_spin_until_set")?;
    let buf = MappedBuffer::<u32>::new(&ctx.gpu, 64)?;
    let dev = ctx.gpu.zeros::<u32>(1)?;
    let gpu = &ctx.gpu;
    let mut took = Vec::new();
    let mut round = |label: &'static str,
                     on: &Device,
                     names: &str,
                     call: &mut dyn FnMut() -> ptx_sync_host::Result<()>|
     -> Result<()> {
        took.push((label, copy_times_out(ctx, on, &spin, &buf, names, call)?));
        Ok(())
    };
    round("download_for", gpu, "download", &mut || {
        gpu.download_for(&dev, SHORT).map(drop)
    })?;
    round("upload_for", gpu, "upload", &mut || {
        gpu.upload_for(&[1u32], SHORT).map(drop)
    })?;
    round("download", &short, "download", &mut || {
        short.download(&dev).map(drop)
    })?;
    round("upload", &short, "upload", &mut || {
        short.upload(&[1u32]).map(drop)
    })?;
    round(
        "read_global",
        &short,
        &format!("reading global `{GLOBAL}`"),
        &mut || module.read_global::<u32>(&short, GLOBAL).map(drop),
    )?;
    round(
        "write_global",
        &short,
        &format!("writing global `{GLOBAL}`"),
        &mut || module.write_global(&short, GLOBAL, &3u32),
    )?;
    module.write_global(&short, GLOBAL, &7u32)?;
    let back = module.read_global::<u32>(&short, GLOBAL)?;
    if back != 7 {
        return Err(format!("after the rounds, {GLOBAL} read back {back}, expected 7").into());
    }
    let each: Vec<String> = took
        .iter()
        .map(|(what, d)| format!("{what} {:.2} s", d.as_secs_f64()))
        .collect();
    Ok(format!(
        "{} copies behind a spinning kernel gave Timeout at their {:.1} s limit ({}), then Stuck; each time the host ended the kernel the GPU worked again",
        took.len(),
        SHORT.as_secs_f64(),
        each.join(", ")
    ))
}

pub fn tests() -> Vec<GpuTest> {
    crate::cases![TIMEOUT;
        "misuse_stuck_gpu_refuses_every_call" => stuck_gpu_refuses_every_call,
        "misuse_stuck_gpu_recovers_when_the_kernel_ends" => stuck_gpu_recovers_when_the_kernel_ends,
        "misuse_grid_barrier_in_a_plain_launch" => grid_barrier_in_a_plain_launch,
        "misuse_watchdog_bounds_every_copy" => watchdog_bounds_every_copy,
    ]
}
