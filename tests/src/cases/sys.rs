//! Host <-> GPU primitives at `Sys` scope on mapped pinned host memory: the host runs
//! ptx_sync's own `Semaphore<Sys>` / `Latch<Sys>` / `Atomic<u32, Sys>` (ptx_sync_host::sys,
//! core-atomics backend, `HostBackoff`) on the very words a kernel runs them on in PTX
//! (tests/kernels/src/sys.rs). Every unit, message and payload word is accounted for.

use crate::{skip, Ctx, GpuTest};
use ptx_sync_host::cudarc::driver::{LaunchConfig, PushKernelArg};
use ptx_sync_host::ptx_sync::{Atomic, Sys};
use ptx_sync_host::sys::{wait_until_for, SysWords};
use ptx_sync_host::MappedBuffer;
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(60);
/// How long the host waits for one GPU answer before calling it lost.
const HOST_WAIT: Duration = Duration::from_secs(5);
const HOST_WAIT_NS: u64 = 5_000_000_000;

// Layouts: tests/kernels/src/sys.rs.
const CHANNEL: usize = 128;
const LEN: usize = 4;
const SEM: usize = 0;
const TICKET: usize = 32;
const DONE: usize = 64;
const INPUT: usize = 128;
const GO: usize = 0;
const LATCH: usize = 32;
const ROUND_INPUT: usize = 64;
const OUT: usize = 128;

fn tag(c: u32, r: u32, i: u32) -> u32 {
    (r.wrapping_mul(0x9e37_79b9) ^ (c << 24)).wrapping_add(i)
}

fn unit_tag(t: u32) -> u32 {
    t.wrapping_mul(0x2545_f491) ^ 0x5a5a_0000
}

fn e(x: impl std::fmt::Display) -> String {
    x.to_string()
}

/// How the host waits for the GPU: the crate's `HostBackoff` (spin, yield, sleep), or a pure
/// spin (a comparison: what the backoff costs in latency).
#[derive(Clone, Copy, PartialEq, Eq)]
enum HostWait {
    Backoff,
    Spin,
}

impl HostWait {
    fn name(self) -> &'static str {
        match self {
            HostWait::Backoff => "HostBackoff",
            HostWait::Spin => "a pure spin",
        }
    }

    /// Waits at most `HOST_WAIT` until `pred(flag)` holds (acquire loads).
    fn until(self, flag: &Atomic<u32, Sys>, pred: impl Fn(u32) -> bool) -> Option<u32> {
        match self {
            HostWait::Backoff => wait_until_for(flag, HOST_WAIT, Acquire, pred).ok(),
            HostWait::Spin => {
                let start = Instant::now();
                loop {
                    let v = flag.load(Acquire);
                    if pred(v) {
                        return Some(v);
                    }
                    if start.elapsed() > HOST_WAIT {
                        return None;
                    }
                    std::hint::spin_loop();
                }
            }
        }
    }
}

fn one_thread_blocks(blocks: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (1, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// Ping-pong through two `BinarySemaphore<Sys>`s per channel, one host thread and one GPU
/// block per channel. The host and the GPU never RMW one word at the same time (the side that
/// released waits on the other word), so this needs no native host atomics.
fn ping_pong(ctx: &Ctx) -> Result<String, String> {
    const CHANNELS: u32 = 4;
    const ROUNDS: u32 = 2_500;
    let kernel = ctx.kernel("sys_ping_pong")?;
    let buf = MappedBuffer::<u32>::new(&ctx.gpu, CHANNELS as usize * CHANNEL).map_err(e)?;
    let stats = ctx.gpu.zeros::<u32>(2 * CHANNELS as usize).map_err(e)?;
    let ptr = buf.device_ptr();
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(&ptr).arg(&ROUNDS).arg(&stats);
    let start = Instant::now();
    unsafe { b.launch(one_thread_blocks(CHANNELS)) }.map_err(|e| format!("launch: {e}"))?;
    let words = buf.atomics_u32();
    let host: Vec<Result<u32, String>> = std::thread::scope(|s| {
        let threads: Vec<_> = (0..CHANNELS)
            .map(|c| {
                let buf = &buf;
                s.spawn(move || {
                    let base = c as usize * CHANNEL;
                    let (to_gpu, to_host) =
                        (buf.semaphore::<1>(base), buf.semaphore::<1>(base + 32));
                    let mut good_replies = 0;
                    for r in 1..=ROUNDS {
                        for i in 0..LEN {
                            words[base + 64 + i].store(tag(c, r, i as u32), Relaxed);
                        }
                        to_gpu.release(1);
                        if !to_host.try_acquire_for(HOST_WAIT_NS) {
                            return Err(format!(
                                "channel {c}: no reply to round {r} within {HOST_WAIT:?}"
                            ));
                        }
                        let ok = (0..LEN)
                            .all(|i| words[base + 96 + i].load(Relaxed) == !tag(c, r, i as u32));
                        good_replies += ok as u32;
                    }
                    Ok(good_replies)
                })
            })
            .collect();
        threads.into_iter().map(|t| t.join().unwrap()).collect()
    });
    let took = start.elapsed();
    ctx.gpu.wait(TIMEOUT).map_err(e)?;
    let s = ctx.gpu.download(&stats).map_err(e)?;
    for (c, h) in host.into_iter().enumerate() {
        let replies = h?;
        let (verified, errors) = (s[2 * c], s[2 * c + 1]);
        let left = [
            words[c * CHANNEL].load(Relaxed),
            words[c * CHANNEL + 32].load(Relaxed),
        ];
        if verified != ROUNDS || errors != 0 || replies != ROUNDS || left != [0, 0] {
            return Err(format!(
                "channel {c}: GPU verified {verified}/{ROUNDS} messages ({errors} errors), host {replies}/{ROUNDS} replies; units left {left:?}"
            ));
        }
    }
    let n = CHANNELS * ROUNDS;
    Ok(format!(
        "{CHANNELS} channels x {ROUNDS} rounds: {} Semaphore<Sys> handoffs (host release -> GPU acquire, GPU release -> host acquire), {} payload words checked on the GPU and {} on the host, 0 errors, no unit left; host waits with HostBackoff; {:.1} us per round trip",
        2 * n,
        n * LEN as u32,
        n * LEN as u32,
        took.as_secs_f64() * 1e6 / ROUNDS as f64
    ))
}

/// The host releases `N` units one at a time into one `Semaphore<Sys>` that every GPU block
/// acquires from, keeping at most `window` units unfinished, then one stop unit per block.
/// `window` 1: the host adds only while no GPU thread can succeed a CAS, so no host RMW races
/// a GPU RMW. A wider window makes them race on the word: that needs native host atomics
/// (`hostNativeAtomicSupported`); without them, the outcome is reported as a skip.
fn consume(ctx: &Ctx, window: u32) -> Result<String, String> {
    const N: u32 = 5_000;
    let native = ctx.gpu.host_native_atomics().map_err(e)?;
    let blocks = ctx.gpu.sm_count();
    let kernel = ctx.kernel("sys_consume")?;
    let buf = MappedBuffer::<u32>::new(&ctx.gpu, INPUT + 2 * N as usize).map_err(e)?;
    let stats = ctx.gpu.zeros::<u32>(2 * blocks as usize).map_err(e)?;
    let ptr = buf.device_ptr();
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(&ptr).arg(&N).arg(&stats);
    let start = Instant::now();
    unsafe { b.launch(one_thread_blocks(blocks)) }.map_err(|e| format!("launch: {e}"))?;
    let words = buf.atomics_u32();
    let sem = buf.semaphore::<{ u32::MAX }>(SEM);
    let done = buf.flag(DONE);
    let output = |t: u32| words[INPUT + (N + t) as usize].load(Relaxed);
    let (mut host_errors, mut early_checks) = (0u32, 0u32);
    let mut lost = None;
    for k in 0..N {
        words[INPUT + k as usize].store(unit_tag(k), Relaxed);
        if k >= window {
            let need = k + 1 - window;
            if wait_until_for(done, HOST_WAIT, Acquire, |d| d >= need).is_err() {
                lost = Some(format!(
                    "unit {} never finished (done = {})",
                    need - 1,
                    done.load(Relaxed)
                ));
                break;
            }
            if window == 1 {
                // Exactly one unit was out: unit k - 1, and it is done.
                host_errors += (output(k - 1) != !unit_tag(k - 1)) as u32;
                early_checks += 1;
            }
        }
        sem.release(1);
    }
    if lost.is_none() && wait_until_for(done, HOST_WAIT, Acquire, |d| d >= N).is_err() {
        lost = Some(format!("only {} of {N} units finished", done.load(Relaxed)));
    }
    let took = start.elapsed();
    sem.release(blocks); // one stop unit per block
    ctx.gpu.wait(TIMEOUT).map_err(e)?;
    let s = ctx.gpu.download(&stats).map_err(e)?;
    let consumed: u32 = s[..blocks as usize].iter().sum();
    let gpu_errors: u32 = s[blocks as usize..].iter().sum();
    let busy = s[..blocks as usize].iter().filter(|&&c| c > 0).count();
    host_errors += (0..N).filter(|&t| output(t) != !unit_tag(t)).count() as u32;
    let (ticket, left, fin) = (
        words[TICKET].load(Relaxed),
        words[SEM].load(Relaxed),
        words[DONE].load(Relaxed),
    );
    let exact = lost.is_none()
        && consumed == N
        && gpu_errors == 0
        && host_errors == 0
        && ticket == N + blocks
        && left == 0
        && fin == N;
    let account = format!(
        "{consumed}/{N} units consumed by {busy} of {blocks} blocks, {gpu_errors} GPU errors, {host_errors} wrong outputs, tickets {ticket} (expected {}), units left {left}, done {fin}{}",
        N + blocks,
        lost.as_deref().map(|l| format!("; {l}")).unwrap_or_default()
    );
    if window > 1 && !native {
        return skip(format!(
            "hostNativeAtomicSupported = 0: host and GPU RMWs on one word are not guaranteed atomic here; observed with a window of {window}: {}{account}",
            if exact { "every unit accounted for: " } else { "LOST UPDATES: " }
        ));
    }
    if !exact {
        return Err(account);
    }
    Ok(format!(
        "{N} units released one at a time by the host (window {window}) into one Semaphore<Sys>, acquired by {blocks} contending blocks ({busy} got some): every unit consumed once (tickets exact), {N} GPU input checks, {} host output checks, 0 errors, no unit left; hostNativeAtomicSupported = {}; host waits with HostBackoff; {:.2} us per unit (each unit costs up to one CAS per block on host memory)",
        N + early_checks,
        native as u32,
        took.as_secs_f64() * 1e6 / N as f64
    ))
}

/// Rounds of fan-in to the host: the host raises a `Sys` flag, every block writes one word per
/// thread, and the host waits on a `Latch<Sys>` (with `HostBackoff` or a spin), then checks every
/// word. The GPU counts the latch down once per block, or (`aggregate`) once per round: the
/// blocks meet on a `Gpu`-scope counter in device memory and the last one counts down, which
/// checks that a `Gpu`-scope acq_rel chain followed by one `Sys` release carries every block's
/// writes to the host. (On the H100 both took the same time per round: the 132 blocks polling
/// the host's flag, not the count-downs, set the pace; see ptx_sync_host::sys.) The `host_spin`
/// variant measures what `HostBackoff` costs against a pure spin. Cooperative launch: the
/// host waits for every block.
fn latch_rounds(ctx: &Ctx, aggregate: bool, how: HostWait) -> Result<String, String> {
    const ROUNDS: u32 = 1_000;
    const THREADS: u32 = 128;
    let kernel = ctx.kernel("sys_latch_rounds")?;
    let blocks = ctx.gpu.sm_count();
    let cfg = ctx
        .gpu
        .cooperative_config(&kernel, blocks, THREADS, 4)
        .map_err(e)?;
    let n = (blocks * THREADS) as usize;
    let buf = MappedBuffer::<u32>::new(&ctx.gpu, OUT + n).map_err(e)?;
    let stats = ctx.gpu.zeros::<u32>(blocks as usize).map_err(e)?;
    let arrived = ctx.gpu.zeros::<u32>(1).map_err(e)?;
    let (ptr, mode) = (buf.device_ptr(), aggregate as u32);
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(&ptr)
        .arg(&ROUNDS)
        .arg(&stats)
        .arg(&arrived)
        .arg(&mode);
    let (arm, count_downs) = if aggregate {
        (1, ROUNDS)
    } else {
        (blocks, ROUNDS * blocks)
    };
    let start = Instant::now();
    unsafe { b.launch_cooperative(cfg) }.map_err(|e| format!("launch: {e}"))?;
    let words = buf.atomics_u32();
    let (mut errors, mut checks, mut opened) = (0u64, 0u64, 0u32);
    let mut lost = None;
    for r in 1..=ROUNDS {
        // Every block counted down round r - 1 and now waits for the flag: re-arm, then go.
        words[LATCH].store(arm, Relaxed);
        let input = r.wrapping_mul(0x0101_0101);
        words[ROUND_INPUT].store(input, Relaxed);
        buf.flag(GO).store(r, Release);
        let open = match how {
            HostWait::Backoff => buf.latch(LATCH).wait_for(HOST_WAIT_NS).is_ok(),
            HostWait::Spin => how.until(buf.flag(LATCH), |v| v == 0).is_some(),
        };
        if !open {
            lost = Some(format!(
                "round {r}: the latch stayed at {} within {HOST_WAIT:?}",
                words[LATCH].load(Relaxed)
            ));
            break;
        }
        opened += 1;
        for (me, w) in words[OUT..OUT + n].iter().enumerate() {
            errors += (w.load(Relaxed) != input.wrapping_add(me as u32)) as u64;
        }
        checks += n as u64;
    }
    let took = start.elapsed();
    if let Some(l) = lost {
        // The blocks give up after their own bounded wait for the flag; the buffer must
        // outlive the kernel.
        let gpu = ctx.gpu.wait(TIMEOUT).err().map(|x| format!("; then {x}"));
        return Err(format!(
            "{l} ({opened} rounds opened before){}",
            gpu.unwrap_or_default()
        ));
    }
    ctx.gpu.wait(TIMEOUT).map_err(e)?;
    let gpu_errors: u32 = ctx.gpu.download(&stats).map_err(e)?.iter().sum();
    if errors != 0 || gpu_errors != 0 {
        return Err(format!(
            "{errors} wrong words in {checks} checks; {gpu_errors} timed-out GPU waits"
        ));
    }
    let how_many = if aggregate {
        "once per round, by the last of the blocks meeting on a Gpu-scope counter"
    } else {
        "once per block"
    };
    Ok(format!(
        "{ROUNDS} rounds x {blocks} blocks x {THREADS} threads: {ROUNDS} Sys flag releases, {count_downs} GPU count-downs ({how_many}) on a Latch<Sys> the host waited on ({}), {checks} GPU-written words checked by the host, 0 errors; {:.1} us per round",
        how.name(),
        took.as_secs_f64() * 1e6 / ROUNDS as f64
    ))
}

pub fn tests() -> Vec<GpuTest> {
    use HostWait::*;
    vec![
        GpuTest {
            name: "sys_semaphore_ping_pong_host_gpu",
            timeout: TIMEOUT,
            run: ping_pong,
        },
        GpuTest {
            name: "sys_semaphore_host_producer_gpu_consumers",
            timeout: TIMEOUT,
            run: |c| consume(c, 1),
        },
        GpuTest {
            name: "sys_semaphore_window_racing_rmw",
            timeout: TIMEOUT,
            run: |c| consume(c, 16),
        },
        GpuTest {
            name: "sys_latch_host_waits_for_blocks",
            timeout: TIMEOUT,
            run: |c| latch_rounds(c, false, Backoff),
        },
        GpuTest {
            name: "sys_latch_host_waits_for_blocks_host_spin",
            timeout: TIMEOUT,
            run: |c| latch_rounds(c, false, Spin),
        },
        GpuTest {
            name: "sys_latch_host_waits_aggregated",
            timeout: TIMEOUT,
            run: |c| latch_rounds(c, true, Backoff),
        },
    ]
}
