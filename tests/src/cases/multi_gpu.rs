//! Two GPUs of one host synchronizing at `Sys` scope while kernels run on both at once (the
//! CUDA Programming Guide's multi-GPU pattern: GPU 0 writes and releases, GPU 1 acquires and
//! reads), through portable pinned host memory (`PortableBuffer`) and through one GPU's memory
//! that the other reaches as a peer (`PeerBuffer`): message passing GPU 0 -> GPU 1, a
//! `Latch<Sys>` and a `Barrier<Sys>` that every thread of both GPUs arrives at, and a
//! `BinarySemaphore<Sys>` ping-pong. Every message, payload word, phase and handoff is counted
//! and checked exactly; every launch is waited for with the watchdog, and every GPU-side wait is
//! bounded (`plan::WAIT`), so a lost message is an error count and a hang a timeout.
//!
//! The protocols are shared as source with the kernels (multi_gpu_plan.rs,
//! tests/kernels/src/multi_gpu.rs); this file's unit tests run them on host threads.
//!
//! With `PTX_SYNC_MULTI_GPU_LOOPBACK=1 CUDA_MODULE_LOADING=EAGER` on a machine with one GPU,
//! both halves run on GPU 0 instead, through two streams (`Device::with_new_stream`), the shared
//! words in portable pinned host memory: the kernels' protocols and the host API meet real
//! hardware there, though not a second GPU's link (peer-memory cases still skip; the outputs
//! say `loopback`). Eager loading is required, and the cases skip without it, because under lazy
//! loading the second half's first launch waited for the first half to end (seen on an H100
//! and an H200: all four host-memory cases timed out that way; with eager loading they pass).
//!
//! On a machine with fewer than two GPUs every case but `multi_gpu_probe` skips, saying so;
//! the probe reports what it found (GPUs, peer access both ways, P2P native atomics,
//! hostNativeAtomicSupported, pageableMemoryAccess), so a run on the two-GPU machine
//! (two H200 GPUs) records those facts. Cases that need RMWs from both GPUs on one word
//! (latch, barrier; the semaphore through peer memory) skip, saying why, where the path lacks
//! native atomics.

#[path = "multi_gpu_plan.rs"]
pub mod plan;

use crate::{skip, Ctx, GpuTest, KERNELS_PTX};
use plan::*;
use ptx_sync_host::cudarc::driver::{CudaSlice, PushKernelArg};
use ptx_sync_host::ptx_sync::barrier::init_word;
use ptx_sync_host::{launch_config, Device, Error, Module, PeerBuffer, PortableBuffer};
use ptx_sync_testkit::Result;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

/// The runner's limit for each case (its process is killed after it).
const TIMEOUT: Duration = Duration::from_secs(150);
/// How long the host waits for both GPUs' kernels together (the watchdog).
const GPU_WAIT: Duration = Duration::from_secs(60);

/// Two GPUs, each with the suite's kernels loaded.
struct Two {
    gpus: Vec<Device>,
    kernels: Vec<Module>,
    /// Both "GPUs" are GPU 0, through two streams ([`LOOPBACK`]).
    loopback: bool,
}

/// Set to 1: with fewer than two GPUs, run both halves on GPU 0 through two streams.
const LOOPBACK: &str = "PTX_SYNC_MULTI_GPU_LOOPBACK";

fn loopback_asked() -> bool {
    std::env::var(LOOPBACK).is_ok_and(|v| v == "1")
}

fn eager_loading() -> bool {
    std::env::var("CUDA_MODULE_LOADING").is_ok_and(|v| v == "EAGER")
}

/// A case's result, saying so where it ran in loopback.
fn noted(r: Result<String>) -> Result<String> {
    let note = "loopback: both halves on GPU 0 through two streams";
    match r {
        Ok(m) if loopback_asked() => Ok(format!("{note}: {m}")),
        other => other,
    }
}

/// The first two GPUs, or a skip saying why this machine cannot run the case.
fn two(ctx: &Ctx) -> Result<Two> {
    let (gpus, loopback) = match Device::open_at_least(2) {
        Ok(gpus) => (gpus, false),
        Err(Error::TooFewGpus { .. }) if loopback_asked() && !eager_loading() => {
            return skip(format!(
                "{LOOPBACK}=1 needs CUDA_MODULE_LOADING=EAGER too: under lazy loading one half's first launch waits for the other half's kernel to end (Device::with_new_stream)"
            ));
        }
        Err(Error::TooFewGpus { .. }) if loopback_asked() => {
            // Two streams of their own: neither is the legacy default stream, which
            // synchronizes with others.
            let g = Device::open(0)?;
            let g0 = g.with_new_stream()?;
            let g1 = g.with_new_stream()?;
            (vec![g0, g1], true)
        }
        Err(err @ Error::TooFewGpus { .. }) => {
            return skip(format!(
                "{err}; the multi-GPU cases need two (run them on a machine with two GPUs, or on one GPU with {LOOPBACK}=1 CUDA_MODULE_LOADING=EAGER)"
            ));
        }
        Err(err) => return Err(err.into()),
    };
    let path = ctx.ptx_dir.join(KERNELS_PTX);
    let kernels = gpus[..2]
        .iter()
        .map(|g| {
            g.load_ptx(&path)
                .map_err(|x| format!("GPU {}: {x}", g.ordinal()))
        })
        .collect::<Result<_, _>>()?;
    Ok(Two {
        gpus,
        kernels,
        loopback,
    })
}

/// Where the shared words live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mem {
    /// Portable pinned host memory mapped into both GPUs.
    Host,
    /// Device memory of GPU `0` or `1`, which the other reaches as a peer.
    Peer(usize),
}

impl Mem {
    fn describe(self) -> String {
        match self {
            Mem::Host => "portable pinned host memory".into(),
            Mem::Peer(o) => format!("GPU {o}'s memory (GPU {} as a peer)", 1 - o),
        }
    }
}

/// The shared words, in one memory or the other.
enum Shared {
    Host(PortableBuffer<u32>),
    Peer(PeerBuffer<u32>),
}

impl Shared {
    /// `len` zeroed words in `mem`, reachable from both GPUs, or a skip saying why this machine
    /// cannot have them (`rmw`: both GPUs run read-modify-writes on the same words, which needs native
    /// atomics on both paths to them).
    fn new(two: &Two, mem: Mem, len: usize, rmw: bool) -> Result<Shared> {
        let g = &two.gpus;
        match mem {
            // One GPU's RMWs on mapped host memory are atomic with each other (the Sys
            // cases of the suite rely on it); only a second GPU's need native atomics.
            Mem::Host => {
                if rmw && !two.loopback {
                    let native = [g[0].host_native_atomics()?, g[1].host_native_atomics()?];
                    if native != [true, true] {
                        return skip(format!(
                            "hostNativeAtomicSupported is {} on GPU 0 and {} on GPU 1: RMWs of both GPUs on one word of mapped host memory are not atomic with each other without it (CUDA Programming Guide, mapped memory); the peer-memory case covers this primitive",
                            native[0] as u8, native[1] as u8
                        ));
                    }
                }
                let buf = PortableBuffer::<u32>::new(&g[..2], len)?;
                Ok(Shared::Host(buf))
            }
            Mem::Peer(_) if two.loopback => skip("loopback: one GPU has no peer memory to test"),
            Mem::Peer(owner) => {
                let other = 1 - owner;
                let info = g[other].peer_info(&g[owner])?;
                if !info.can_access {
                    return skip(format!(
                        "{info}: kernels on GPU {other} cannot reach GPU {owner}'s memory here"
                    ));
                }
                if rmw && !info.native_atomics {
                    return skip(format!(
                        "{info}: RMWs of GPU {other} on GPU {owner}'s memory are not native over this link, so not atomic with GPU {owner}'s own"
                    ));
                }
                let buf = PeerBuffer::<u32>::new(&g[owner], len)?;
                buf.device_ptr_for(&g[other])?; // enables the peer access
                Ok(Shared::Peer(buf))
            }
        }
    }

    /// The address kernels on `gpu` use.
    fn ptr(&self, gpu: &Device) -> Result<u64> {
        match self {
            Shared::Host(b) => b.device_ptr(gpu),
            Shared::Peer(b) => b.device_ptr_for(gpu),
        }
        .map_err(Into::into)
    }

    /// Every word, read by the host (after the kernels are done).
    fn read(&self) -> Result<Vec<u32>> {
        match self {
            Shared::Host(b) => Ok(b.atomics_u32().iter().map(|w| w.load(Relaxed)).collect()),
            Shared::Peer(b) => b.read().map_err(Into::into),
        }
    }

    /// Writes `data` from word `offset` on (before the kernels start).
    fn write(&self, offset: usize, data: &[u32]) -> Result<()> {
        match self {
            Shared::Host(b) => {
                for (w, &v) in b.atomics_u32()[offset..offset + data.len()]
                    .iter()
                    .zip(data)
                {
                    w.store(v, Relaxed);
                }
                Ok(())
            }
            Shared::Peer(b) => b.write(offset, data).map_err(Into::into),
        }
    }
}

/// One GPU's half: kernel `name` on GPU `g`, `grid` blocks of `block` threads (16 bytes of
/// dynamic shared memory), arguments `(buf, scalars.., stats)`.
struct Half<'a> {
    g: usize,
    name: &'a str,
    grid: u32,
    block: u32,
    cooperative: bool,
    scalars: Vec<u32>,
    stats: &'a CudaSlice<u32>,
}

/// Launches the halves in order (the waiting side first), so both GPUs run at once, then waits
/// for every GPU that started with the watchdog (also after a failed launch: the shared memory
/// must outlive the kernels, whose own waits end within `plan::WAIT`). Returns the time from
/// the first launch until both finished, and the shared memory. Where a GPU did not finish,
/// the memory is leaked rather than freed under a kernel that may still use it (freeing could
/// also wait for that kernel), and the error says which GPU.
fn run(two: &Two, shared: Shared, halves: &[Half]) -> Result<(Duration, Shared)> {
    let start = Instant::now();
    let mut started = Vec::new();
    let mut failed = None;
    for h in halves {
        let gpu = &two.gpus[h.g];
        let launched = (|| -> Result<()> {
            // One host thread drives both GPUs: make this one's context current first.
            gpu.context().bind_to_thread()?;
            let kernel = two.kernels[h.g].kernel(h.name)?;
            let ptr = shared.ptr(gpu)?;
            let mut l = gpu.launch_builder(&kernel);
            l.arg(ptr);
            for &s in &h.scalars {
                l.arg(s);
            }
            l.arg(h.stats);
            let cfg = launch_config(h.grid, h.block, 16);
            // SAFETY: the arguments are the kernel's parameters (checked against the driver's
            // sizes); `ptr` holds the words the case allocated for it, `stats` its counts.
            unsafe {
                if h.cooperative {
                    l.launch_cooperative(cfg).map(|_| ())
                } else {
                    l.launch(cfg)
                }
            }
            .map_err(Into::into)
        })();
        match launched {
            Ok(()) => started.push(h.g),
            Err(x) => {
                failed = Some(format!("GPU {}: {x}", h.g));
                break;
            }
        }
    }
    let mut errors: Vec<String> = failed.into_iter().collect();
    let mut running = false;
    started.sort();
    started.dedup();
    for g in started {
        let left = GPU_WAIT
            .saturating_sub(start.elapsed())
            .max(Duration::from_secs(1));
        if let Err(x) = two.gpus[g].wait(left) {
            running |= matches!(x, Error::Timeout { .. });
            errors.push(format!("GPU {g}: {x}"));
        }
    }
    if errors.is_empty() {
        return Ok((start.elapsed(), shared));
    }
    if running {
        std::mem::forget(shared);
    }
    Err(errors.join("; ").into())
}

fn download(two: &Two, g: usize, stats: &CudaSlice<u32>) -> Result<Vec<u32>> {
    two.gpus[g].download(stats).map_err(Into::into)
}

/// Prints the facts a run on a machine should record, and checks the typed errors of the
/// multi-GPU host API: an ordinal past the count, more GPUs than there are, a GPU as its own
/// peer, a buffer used on a GPU it is not mapped for. Passes with one GPU (saying the other
/// cases skip there).
fn probe(_ctx: &Ctx) -> Result<String> {
    let count = Device::count()?;
    match Device::open_list(&[0, count]) {
        Err(Error::NoSuchGpu { ordinal, count: c }) if (ordinal, c) == (count, count) => {}
        other => {
            return Err(format!(
                "open_list(&[0, {count}]): expected NoSuchGpu naming {count}, got {other:?}"
            )
            .into());
        }
    }
    match Device::open_at_least(count + 1) {
        Err(Error::TooFewGpus { needed, count: c }) if (needed, c) == (count + 1, count) => {}
        other => {
            return Err(format!(
                "open_at_least({}): expected TooFewGpus, got {other:?}",
                count + 1
            )
            .into());
        }
    }
    let gpus = Device::open_all()?;
    let mut facts = vec![format!("{count} GPU(s)")];
    for g in &gpus {
        let (major, minor) = g.compute_capability();
        facts.push(format!(
            "GPU {}: {} (sm_{major}{minor}, {} SMs), hostNativeAtomicSupported {}, pageableMemoryAccess {}",
            g.ordinal(),
            g.name(),
            g.sm_count(),
            g.host_native_atomics()? as u8,
            g.pageable_memory_access()? as u8
        ));
        match g.peer_info(g) {
            Err(Error::NoPeerAccess { gpu, peer, .. }) if gpu == peer => {}
            other => {
                return Err(
                    format!("peer_info of GPU {} with itself: {other:?}", g.ordinal()).into(),
                );
            }
        }
    }
    let mut all_can = true;
    for a in &gpus {
        for b in &gpus {
            if a.ordinal() != b.ordinal() {
                let info = a.peer_info(b)?;
                all_can &= info.can_access;
                facts.push(info.to_string());
            }
        }
    }
    // Mapped for GPU 0 only: GPU 1 is refused by name.
    let only0 = PortableBuffer::<u32>::new(&gpus[..1], 32)?;
    if let Some(g1) = gpus.get(1) {
        match only0.device_ptr(g1) {
            Err(Error::NotMapped { gpu: 1, ref mapped }) if mapped == &[0] => {}
            other => {
                return Err(format!("a buffer mapped for GPU 0 used on GPU 1: {other:?}").into());
            }
        }
    }
    let all = PortableBuffer::<u32>::new(&gpus, 32)?;
    let ptrs: Vec<String> = gpus
        .iter()
        .map(|g| all.device_ptr(g).map(|p| format!("{p:#x}")))
        .collect::<Result<_, _>>()?;
    facts.push(format!(
        "portable buffer at host {:p}, device pointers {}",
        all.host_ptr(),
        ptrs.join(", ")
    ));
    if gpus.len() < 2 {
        facts.push("the other multi_gpu_* cases skip here (they need two GPUs)".into());
    } else if all_can {
        let n = Device::enable_peer_access_all(&gpus)?.len();
        facts.push(format!("peer access enabled for all {n} ordered pairs"));
    } else {
        facts.push("peer access is not possible between every pair".into());
    }
    Ok(facts.join("; "))
}

/// Message passing GPU 0 -> GPU 1: `CHANNELS` block pairs, a ring of `mp::SLOTS` slots each,
/// `MSGS` messages of `mp::LANES` words per channel; both kernels run at once.
fn message_passing(ctx: &Ctx, mem: Mem) -> Result<String> {
    const CHANNELS: u32 = 4;
    const MSGS: u32 = 5_000;
    let two = two(ctx)?;
    let shared = Shared::new(&two, mem, CHANNELS as usize * mp::CHANNEL, false)?;
    let sent = two.gpus[0].zeros::<u32>(2 * CHANNELS as usize)?;
    let got = two.gpus[1].zeros::<u32>(5 * CHANNELS as usize)?;
    let half = |g, name, stats| Half {
        g,
        name,
        grid: CHANNELS,
        block: mp::LANES as u32,
        cooperative: false,
        scalars: vec![MSGS],
        stats,
    };
    let (took, shared) = run(
        &two,
        shared,
        &[
            half(1, "multi_mp_receive", &got),
            half(0, "multi_mp_send", &sent),
        ],
    )?;
    let (s, r, words) = (
        download(&two, 0, &sent)?,
        download(&two, 1, &got)?,
        shared.read()?,
    );
    let lanes = mp::LANES as u32;
    for c in 0..CHANNELS as usize {
        let (sc, rc) = (&s[2 * c..2 * c + 2], &r[5 * c..5 * c + 5]);
        if sc != [MSGS, 0] || rc != [MSGS, MSGS * lanes, 0, 0, 0] {
            return Err(format!(
                "channel {c}: GPU 0 sent {} ({} timed-out waits for a slot); GPU 1 received {}, {} words right, {} wrong, {} skipped sequence numbers, {} timed-out waits (expected {MSGS} messages, {} words, 0 else)",
                sc[0],
                sc[1],
                rc[0],
                rc[1],
                rc[2],
                rc[3],
                rc[4],
                MSGS * lanes
            ).into());
        }
        let ch = &words[c * mp::CHANNEL..(c + 1) * mp::CHANNEL];
        if ch[mp::CONSUMED] != MSGS {
            return Err(format!(
                "channel {c}: consumed count {} (expected {MSGS})",
                ch[mp::CONSUMED]
            )
            .into());
        }
        for slot in 0..mp::SLOTS {
            let last = mp::last_in_slot(MSGS, slot);
            let s = slot as usize;
            if ch[mp::seq(s)] != last {
                return Err(format!(
                    "channel {c} slot {slot}: sequence {} (expected {last})",
                    ch[mp::seq(s)]
                )
                .into());
            }
            for i in 0..mp::LANES {
                let want = mp::tag(c as u32, last, i as u32);
                if ch[mp::payload(s) + i] != want {
                    return Err(format!(
                        "channel {c} slot {slot} word {i}: {:#x} after the run (expected message {last}'s {want:#x})",
                        ch[mp::payload(s) + i]
                    ).into());
                }
            }
        }
    }
    let n = CHANNELS * MSGS;
    Ok(format!(
        "{CHANNELS} channels x {MSGS} messages of {lanes} words GPU 0 -> GPU 1 through {} (ring of {} slots; st.release.sys / ld.acquire.sys, both kernels running at once): {n} messages, {} payload words checked on GPU 1, 0 wrong, 0 timeouts; final ring exact; {:.2} us per message per channel",
        mem.describe(),
        mp::SLOTS,
        n * lanes,
        took.as_secs_f64() * 1e6 / MSGS as f64
    ))
}

/// Blocks per GPU and threads per block of the latch and barrier cases.
const BLOCKS: u32 = 4;
const THREADS: u32 = 64;

/// Runs kernel `name` on both GPUs at once, `BLOCKS` cooperative blocks of `THREADS` each
/// (scalars: its first block, all blocks, `rounds`), and checks its stats ([`check_rounds`]):
/// `Ok` holds the time, the shared words back and the peer words read right.
fn run_rounds(
    two: &Two,
    shared: Shared,
    name: &str,
    rounds: u32,
) -> Result<(Duration, Shared, u64)> {
    let blocks = 2 * BLOCKS;
    let stats = [
        two.gpus[0].zeros::<u32>(4 * BLOCKS as usize)?,
        two.gpus[1].zeros::<u32>(4 * BLOCKS as usize)?,
    ];
    let half = |g: usize| Half {
        g,
        name,
        grid: BLOCKS,
        block: THREADS,
        cooperative: true,
        scalars: vec![g as u32 * BLOCKS, blocks, rounds],
        stats: &stats[g],
    };
    let (took, shared) = run(two, shared, &[half(1), half(0)])?;
    let ok = check_rounds(two, [&stats[0], &stats[1]], rounds * blocks)?;
    Ok((took, shared, ok))
}

/// Checks the per-block `[right, stale, wrong phase, timeouts]` counts of both GPUs.
fn check_rounds(two: &Two, stats: [&CudaSlice<u32>; 2], per_thread_ok: u32) -> Result<u64> {
    let mut ok = 0u64;
    for (g, s) in stats.iter().enumerate() {
        let s = download(two, g, s)?;
        for b in 0..BLOCKS as usize {
            let got = &s[4 * b..4 * b + 4];
            let want = [per_thread_ok * THREADS, 0, 0, 0];
            if got != want {
                return Err(format!(
                    "GPU {g} block {b}: {} peer words right, {} stale, {} wrong phase counts, {} timed-out waits (expected {want:?})",
                    got[0], got[1], got[2], got[3]
                ).into());
            }
            ok += got[0] as u64;
        }
    }
    Ok(ok)
}

/// A `Latch<Sys>` per round, armed with every thread of both GPUs and counted down by each:
/// after it opens, every thread reads one word of every block of both GPUs.
fn latch(ctx: &Ctx, mem: Mem) -> Result<String> {
    const ROUNDS: u32 = 200;
    let two = two(ctx)?;
    let (blocks, total) = (2 * BLOCKS, 2 * BLOCKS * THREADS);
    let len = latch::words(ROUNDS, total);
    let shared = Shared::new(&two, mem, len, true)?;
    for r in 0..ROUNDS {
        shared.write(latch::latch(r), &[total])?;
    }
    let (took, shared, ok) = run_rounds(&two, shared, "multi_latch_rounds", ROUNDS)?;
    let words = shared.read()?;
    for r in 0..ROUNDS {
        if words[latch::latch(r)] != 0 {
            return Err(format!(
                "round {r}'s latch holds {} after the run (expected 0)",
                words[latch::latch(r)]
            )
            .into());
        }
    }
    for idx in 0..total {
        for r in [ROUNDS - 2, ROUNDS - 1] {
            let got = words[latch::data(ROUNDS, r % 2, idx, total)];
            if got != latch::tag(r, idx) {
                return Err(
                    format!("thread {idx}'s word of round {r}: {got:#x} after the run").into(),
                );
            }
        }
    }
    Ok(format!(
        "{ROUNDS} rounds, each a fresh Latch<Sys> in {} counted down by all {total} threads of {blocks} blocks on both GPUs at once ({} count-downs): {ok} peer words read after the latch opened, all of their round, 0 stale, 0 timeouts; every latch at 0; {:.1} us per round",
        mem.describe(),
        ROUNDS * total,
        took.as_secs_f64() * 1e6 / ROUNDS as f64
    ))
}

/// One `Barrier<Sys>` for every thread of both GPUs, reused for `PHASES` phases; its
/// completion step counts the phases, which every thread checks after each.
fn barrier(ctx: &Ctx, mem: Mem) -> Result<String> {
    const PHASES: u32 = 500;
    let two = two(ctx)?;
    let (blocks, total) = (2 * BLOCKS, 2 * BLOCKS * THREADS);
    let shared = Shared::new(&two, mem, barrier::words(total), true)?;
    let word = init_word(total);
    shared.write(0, &[word as u32, (word >> 32) as u32])?;
    let (took, shared, ok) = run_rounds(&two, shared, "multi_barrier_phases", PHASES)?;
    let words = shared.read()?;
    let after = words[0] as u64 | (words[1] as u64) << 32;
    let want = word | ((PHASES % 2) as u64) << 63;
    if after != want || words[barrier::COUNT] != PHASES {
        return Err(format!(
            "after {PHASES} phases: barrier word {after:#x} (expected {want:#x}: restarted, phase bit {}), completion count {} (expected {PHASES})",
            PHASES % 2,
            words[barrier::COUNT]
        ).into());
    }
    Ok(format!(
        "{PHASES} phases of one Barrier<Sys> in {} for all {total} threads of {blocks} blocks on both GPUs at once (arrive_and_wait_with, warp-aggregated): completion ran exactly once per phase (every thread saw count p + 1 after phase p), {ok} peer words read after their phase, 0 stale; barrier word restarted with phase bit {}; {:.1} us per phase",
        mem.describe(),
        PHASES % 2,
        took.as_secs_f64() * 1e6 / PHASES as f64
    ))
}

/// A `BinarySemaphore<Sys>` ping-pong between the GPUs, `CHANNELS` channels at once.
fn ping_pong(ctx: &Ctx, mem: Mem) -> Result<String> {
    const CHANNELS: u32 = 4;
    const ROUNDS: u32 = 2_000;
    let two = two(ctx)?;
    // Through peer memory the exchange runs on the other GPU's word: it needs native P2P
    // atomics. In host memory the two sides never RMW one word at once (see plan::pp), as
    // in ptx_sync_host::sys's host <-> GPU ping-pong.
    let shared = Shared::new(&two, mem, CHANNELS as usize * pp::CHANNEL, mem != Mem::Host)?;
    let stats = [
        two.gpus[0].zeros::<u32>(3 * CHANNELS as usize)?,
        two.gpus[1].zeros::<u32>(3 * CHANNELS as usize)?,
    ];
    let half = |g: usize, name| Half {
        g,
        name,
        grid: CHANNELS,
        block: 1,
        cooperative: false,
        scalars: vec![ROUNDS],
        stats: &stats[g],
    };
    let (took, shared) = run(
        &two,
        shared,
        &[half(1, "multi_pp_pong"), half(0, "multi_pp_ping")],
    )?;
    for (g, s) in stats.iter().enumerate() {
        let s = download(&two, g, s)?;
        for c in 0..CHANNELS as usize {
            if s[3 * c..3 * c + 3] != [ROUNDS, 0, 0] {
                return Err(format!(
                    "GPU {g} channel {c}: {} rounds right, {} wrong, {} timed-out acquires (expected {ROUNDS}, 0, 0)",
                    s[3 * c],
                    s[3 * c + 1],
                    s[3 * c + 2]
                ).into());
            }
        }
    }
    let words = shared.read()?;
    for c in 0..CHANNELS as usize {
        let ch = &words[c * pp::CHANNEL..(c + 1) * pp::CHANNEL];
        let left = [ch[pp::PING], ch[pp::PONG]];
        let last: Vec<(u32, u32)> = (0..pp::LEN)
            .map(|i| (ch[pp::PAYLOAD + i], ch[pp::REPLY + i]))
            .collect();
        let want: Vec<(u32, u32)> = (0..pp::LEN as u32)
            .map(|i| (pp::tag(c as u32, ROUNDS, i), !pp::tag(c as u32, ROUNDS, i)))
            .collect();
        if left != [0, 0] || last != want {
            return Err(format!(
                "channel {c}: units left {left:?}, last payload/reply {last:x?} (expected {want:x?})"
            ).into());
        }
    }
    let n = CHANNELS * ROUNDS;
    Ok(format!(
        "{CHANNELS} channels x {ROUNDS} rounds through two BinarySemaphore<Sys> each in {} (GPU 0 release -> GPU 1 acquire, GPU 1 release -> GPU 0 acquire, both kernels at once): {} handoffs, {n} messages checked on GPU 1 and {n} replies on GPU 0, 0 errors, no unit left; {:.2} us per round trip",
        mem.describe(),
        2 * n,
        took.as_secs_f64() * 1e6 / ROUNDS as f64
    ))
}

/// The cases, in run order.
pub fn tests() -> Vec<GpuTest> {
    crate::cases![
        TIMEOUT;
        "multi_gpu_probe" => probe,
        "multi_gpu_message_passing_host_memory" => |c| noted(message_passing(c, Mem::Host)),
        "multi_gpu_message_passing_peer_on_gpu0" => |c| noted(message_passing(c, Mem::Peer(0))),
        "multi_gpu_message_passing_peer_on_gpu1" => |c| noted(message_passing(c, Mem::Peer(1))),
        "multi_gpu_latch_peer" => |c| noted(latch(c, Mem::Peer(0))),
        "multi_gpu_latch_host_memory" => |c| noted(latch(c, Mem::Host)),
        "multi_gpu_barrier_peer" => |c| noted(barrier(c, Mem::Peer(0))),
        "multi_gpu_barrier_host_memory" => |c| noted(barrier(c, Mem::Host)),
        "multi_gpu_semaphore_ping_pong_host_memory" => |c| noted(ping_pong(c, Mem::Host)),
        "multi_gpu_semaphore_ping_pong_peer" => |c| noted(ping_pong(c, Mem::Peer(0))),
    ]
}

/// The protocols on host threads: the same code (multi_gpu_plan.rs) on the device crate's
/// core-atomics backend, two groups of "blocks" standing for the two GPUs, each block a group
/// of std threads meeting at a `std::sync::Barrier`.
#[cfg(test)]
mod tests {
    use super::*;
    use ptx_sync_host::ptx_sync::{Atomic, Cta};
    use std::sync::atomic::AtomicU64;

    struct HostBlock<'a> {
        t: u32,
        n: u32,
        barrier: &'a std::sync::Barrier,
        stop: &'a Atomic<u32, Cta>,
    }

    impl Block for HostBlock<'_> {
        fn thread(&self) -> u32 {
            self.t
        }
        fn threads(&self) -> u32 {
            self.n
        }
        fn sync(&self) {
            self.barrier.wait();
        }
        fn stop(&self) -> &Atomic<u32, Cta> {
            self.stop
        }
    }

    /// `len` zeroed words, 8-byte aligned (a `Barrier` at word 0).
    fn words(len: usize) -> Vec<AtomicU64> {
        (0..len.div_ceil(2)).map(|_| AtomicU64::new(0)).collect()
    }

    fn base(w: &[AtomicU64]) -> *mut u32 {
        w.as_ptr() as *mut u32
    }

    /// The word `i` of `w` seen as `u32`s.
    fn word(w: &[AtomicU64], i: usize) -> u32 {
        // SAFETY: inside the allocation, aligned; read with an atomic.
        unsafe { core::sync::atomic::AtomicU32::from_ptr(base(w).add(i)) }.load(Relaxed)
    }

    /// Runs `blocks` blocks of `threads` threads; thread `t` of block `b` returns
    /// `f(b, &block)`. Results by block, then thread.
    fn run_blocks<R: Send>(
        blocks: u32,
        threads: u32,
        f: impl Fn(u32, &HostBlock) -> R + Sync,
    ) -> Vec<Vec<R>> {
        let barriers: Vec<_> = (0..blocks)
            .map(|_| std::sync::Barrier::new(threads as usize))
            .collect();
        let stops: Vec<_> = (0..blocks).map(|_| Atomic::<u32, Cta>::new(0)).collect();
        std::thread::scope(|s| {
            let handles: Vec<Vec<_>> = (0..blocks)
                .map(|b| {
                    (0..threads)
                        .map(|t| {
                            let (f, barrier, stop) =
                                (&f, &barriers[b as usize], &stops[b as usize]);
                            s.spawn(move || {
                                f(
                                    b,
                                    &HostBlock {
                                        t,
                                        n: threads,
                                        barrier,
                                        stop,
                                    },
                                )
                            })
                        })
                        .collect()
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.into_iter().map(|h| h.join().unwrap()).collect())
                .collect()
        })
    }

    /// Shared pointer across threads.
    #[derive(Clone, Copy)]
    struct P(*mut u32);
    // SAFETY: the protocols reach the words only atomically on the host.
    unsafe impl Send for P {}
    unsafe impl Sync for P {}

    impl P {
        /// Through a method: a closure that named `p.0` would capture the raw field alone.
        fn at(self, i: usize) -> *mut u32 {
            // SAFETY: callers stay inside the allocation.
            unsafe { self.0.add(i) }
        }
    }

    #[test]
    fn message_passing_delivers_every_message_once_in_order() {
        const CHANNELS: u32 = 2;
        const THREADS: u32 = 4;
        const MSGS: u32 = 300;
        let w = words(CHANNELS as usize * mp::CHANNEL);
        let p = P(base(&w));
        // Blocks 0..CHANNELS send (GPU 0), the rest receive (GPU 1).
        let out = run_blocks(2 * CHANNELS, THREADS, |b, k| {
            let c = b % CHANNELS;
            let ch = p.at(c as usize * mp::CHANNEL);
            if b < CHANNELS {
                let s = unsafe { mp_send(k, ch, c, MSGS) };
                [s.sent, s.timeouts, 0, 0, 0]
            } else {
                let r = unsafe { mp_receive(k, ch, c, MSGS) };
                [r.received, r.ok, r.wrong, r.wrong_seq, r.timeouts]
            }
        });
        for c in 0..CHANNELS as usize {
            let sum = |b: usize| {
                out[b].iter().fold([0u32; 5], |mut a, x| {
                    for i in 0..5 {
                        a[i] += x[i];
                    }
                    a
                })
            };
            assert_eq!(sum(c), [MSGS, 0, 0, 0, 0], "sender {c}");
            assert_eq!(
                sum(CHANNELS as usize + c),
                [MSGS, MSGS * mp::LANES as u32, 0, 0, 0],
                "receiver {c}: received, right, wrong, skipped, timeouts"
            );
            let at = |i: usize| word(&w, c * mp::CHANNEL + i);
            assert_eq!(at(mp::CONSUMED), MSGS);
            for s in 0..mp::SLOTS {
                let last = mp::last_in_slot(MSGS, s);
                assert_eq!(at(mp::seq(s as usize)), last);
                assert_eq!(at(mp::payload(s as usize) + 7), mp::tag(c as u32, last, 7));
            }
        }
    }

    #[test]
    fn last_in_slot_is_the_last_message_each_slot_carried() {
        // Messages 1..=10 in 4 slots: slot 0 carries 1, 5, 9; slot 1 2, 6, 10; slot 2 3, 7;
        // slot 3 4, 8.
        assert_eq!(
            (0..4).map(|s| mp::last_in_slot(10, s)).collect::<Vec<_>>(),
            [9, 10, 7, 8]
        );
        assert_eq!(mp::last_in_slot(2, 3), 0);
        assert_eq!(mp::last_in_slot(4, 3), 4);
    }

    #[test]
    fn latch_rounds_let_no_thread_read_early() {
        const BLOCKS: u32 = 4; // two "GPUs" of two blocks
        const THREADS: u32 = 3;
        const ROUNDS: u32 = 60;
        let total = BLOCKS * THREADS;
        let w = words(latch::words(ROUNDS, total));
        let p = P(base(&w));
        for r in 0..ROUNDS {
            // SAFETY: inside, aligned.
            unsafe { core::sync::atomic::AtomicU32::from_ptr(p.at(latch::latch(r))) }
                .store(total, Relaxed);
        }
        let out = run_blocks(BLOCKS, THREADS, |b, k| unsafe {
            latch_rounds(k, p.at(0), b, BLOCKS, ROUNDS)
        });
        for (b, threads) in out.iter().enumerate() {
            for (t, r) in threads.iter().enumerate() {
                assert_eq!(
                    (r.ok, r.stale, r.timeouts),
                    (ROUNDS * BLOCKS, 0, 0),
                    "block {b} thread {t}"
                );
            }
        }
        assert!((0..ROUNDS).all(|r| word(&w, latch::latch(r)) == 0));
    }

    #[test]
    fn barrier_phases_complete_once_each_and_restart() {
        const BLOCKS: u32 = 4;
        const THREADS: u32 = 3;
        const PHASES: u32 = 101;
        let total = BLOCKS * THREADS;
        let w = words(barrier::words(total));
        w[0].store(init_word(total), Relaxed);
        let p = P(base(&w));
        let out = run_blocks(BLOCKS, THREADS, |b, k| unsafe {
            barrier_phases(k, p.at(0), b, BLOCKS, PHASES)
        });
        for (b, threads) in out.iter().enumerate() {
            for (t, r) in threads.iter().enumerate() {
                assert_eq!(
                    (r.ok, r.stale, r.wrong_phase),
                    (PHASES * BLOCKS, 0, 0),
                    "block {b} thread {t}"
                );
            }
        }
        assert_eq!(word(&w, barrier::COUNT), PHASES);
        assert_eq!(
            w[0].load(Relaxed),
            init_word(total) | ((PHASES % 2) as u64) << 63
        );
    }

    #[test]
    fn ping_pong_hands_every_round_back_and_forth() {
        const CHANNELS: u32 = 3;
        const ROUNDS: u32 = 500;
        let w = words(CHANNELS as usize * pp::CHANNEL);
        let p = P(base(&w));
        let out = run_blocks(2 * CHANNELS, 1, |b, _| {
            let c = b % CHANNELS;
            let ch = p.at(c as usize * pp::CHANNEL);
            if b < CHANNELS {
                unsafe { pp_ping(ch, c, ROUNDS) }
            } else {
                unsafe { pp_pong(ch, c, ROUNDS) }
            }
        });
        for (b, h) in out.iter().enumerate() {
            assert_eq!(
                h[0],
                Handoffs {
                    ok: ROUNDS,
                    wrong: 0,
                    timeouts: 0
                },
                "block {b}"
            );
        }
        for c in 0..CHANNELS as usize {
            assert_eq!(word(&w, c * pp::CHANNEL + pp::PING), 0);
            assert_eq!(word(&w, c * pp::CHANNEL + pp::PONG), 0);
        }
    }

    #[test]
    fn every_case_is_registered_and_named_multi_gpu() {
        let names: Vec<_> = tests().iter().map(|t| t.name).collect();
        assert_eq!(names.len(), 10);
        assert!(names.iter().all(|n| n.starts_with("multi_gpu_")));
        let all: Vec<_> = crate::all_tests().iter().map(|t| t.name).collect();
        assert!(names.iter().all(|n| all.contains(n)));
    }
}
