//! Host threads and GPU blocks read-modify-write the same `Sys` primitives at the same time in
//! managed memory (`ptx_sync_host::ManagedBuffer`): one `Semaphore<Sys>`, one `Latch<Sys>` per
//! round, one `Barrier<Sys>`. The host runs ptx_sync's own types (ptx_sync_host::sys,
//! `HostBackoff`) on the very words a kernel runs them on in PTX (tests/kernels/src/managed.rs).
//! In mapped pinned memory these races lose updates where `hostNativeAtomicSupported` is 0
//! (sys.rs); managed memory needs `concurrentManagedAccess` instead, and the cases skip where
//! it is 0. Every unit, arrival and data word is accounted for.

use crate::{Ctx, GpuTest};
use ptx_sync_host::cudarc::driver::PushKernelArg;
use ptx_sync_host::ptx_sync::barrier::init_word;
use ptx_sync_host::sys::SysWords;
use ptx_sync_host::{Error, ManagedBuffer};
use ptx_sync_testkit::{skip, Result};
use std::sync::atomic::AtomicU32;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(120);
/// How long a host thread waits for one GPU answer before calling it lost.
const HOST_WAIT: Duration = Duration::from_secs(10);
/// Words of every test's buffer: 4 KiB.
const WORDS: usize = 1024;
const HOST_THREADS: u32 = 4;
const BLOCKS: u32 = 4;
const THREADS: u32 = 32;

// Layouts: tests/kernels/src/managed.rs.
const UNITS: u32 = 4;
const SEM: usize = 0;
const HOLDERS: usize = 32;
const MOST: usize = 64;
const PASSES: usize = 96;
const LATCHES: usize = 128;
const LATCH_DATA: usize = 512;
const BARRIER: usize = 0;
const BARRIER_DATA: usize = 128;

fn tag(r: u32, p: u32) -> u32 {
    r.wrapping_mul(0x9e37_79b9) ^ p.wrapping_mul(0x2545_f491) ^ 0x00c0_ffee
}

/// A zeroed managed buffer of [`WORDS`] words, or a skip where this GPU has no concurrent
/// managed access (`Error::NoConcurrentManagedAccess`, whose message says what it means).
fn buffer(ctx: &Ctx) -> Result<ManagedBuffer<u32>> {
    match ctx.gpu.managed::<u32>(WORDS) {
        Err(e @ Error::NoConcurrentManagedAccess { .. }) => skip(e),
        r => Ok(r?),
    }
}

/// Host threads and every thread of 4 blocks of 32 take units of one `Semaphore<Sys, 4>`
/// at the same time (host CASes and adds racing GPU CASes and adds on one word), each holder
/// counting itself in `Sys` counters that both sides RMW too. Exact: every unit back, every
/// section counted once, never more than 4 holders.
fn semaphore(ctx: &Ctx) -> Result<String> {
    const GPU_ITERS: u32 = 8;
    const HOST_ITERS: u32 = 256;
    let buf = buffer(ctx)?;
    let kernel = ctx.kernel("managed_semaphore")?;
    let n = (BLOCKS * THREADS) as usize;
    let stats = ctx.gpu.zeros::<u32>(2 * n)?;
    buf.semaphore::<UNITS>(SEM).release(UNITS);
    let ptr = buf.device_ptr();
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(&ptr).arg(&GPU_ITERS).arg(&stats);
    let cfg = ctx.gpu.cooperative_config(&kernel, BLOCKS, THREADS, 0)?;
    let start = Instant::now();
    unsafe { b.launch_cooperative(cfg) }.map_err(|e| format!("launch: {e}"))?;
    let words = buf.atomics_u32();
    let host: Vec<(u32, u32)> = std::thread::scope(|s| {
        let threads: Vec<_> = (0..HOST_THREADS)
            .map(|_| {
                let buf = &buf;
                s.spawn(move || {
                    let sem = buf.semaphore::<UNITS>(SEM);
                    let (mut done, mut lost) = (0, 0);
                    for _ in 0..HOST_ITERS {
                        if !sem.try_acquire_for(HOST_WAIT) {
                            lost += 1;
                            break;
                        }
                        let now = words[HOLDERS].fetch_add(1, Relaxed) + 1;
                        words[MOST].fetch_max(now, Relaxed);
                        words[PASSES].fetch_add(1, Relaxed);
                        words[HOLDERS].fetch_sub(1, Relaxed);
                        sem.release(1);
                        done += 1;
                    }
                    (done, lost)
                })
            })
            .collect();
        threads.into_iter().map(|t| t.join().unwrap()).collect()
    });
    ctx.gpu.wait(TIMEOUT)?;
    let took = start.elapsed();
    let s = ctx.gpu.download(&stats)?;
    let gpu_done: u32 = s[..n].iter().sum();
    let gpu_lost: u32 = s[n..].iter().sum();
    let host_done: u32 = host.iter().map(|h| h.0).sum();
    let host_lost: u32 = host.iter().map(|h| h.1).sum();
    let [left, holders, most, passes] =
        [SEM, HOLDERS, MOST, PASSES].map(|i| words[i].load(Relaxed));
    let (want_gpu, want_host) = (n as u32 * GPU_ITERS, HOST_THREADS * HOST_ITERS);
    let exact = gpu_done == want_gpu
        && host_done == want_host
        && gpu_lost + host_lost == 0
        && left == UNITS
        && holders == 0
        && passes == want_gpu + want_host
        && (1..=UNITS).contains(&most);
    if !exact {
        return Err(format!(
            "GPU sections {gpu_done}/{want_gpu} ({gpu_lost} timed out), host {host_done}/{want_host} ({host_lost} timed out); units left {left} (expected {UNITS}), holders {holders}, most holders {most} (at most {UNITS}), sections counted {passes} (expected {})",
            want_gpu + want_host
        ).into());
    }
    Ok(format!(
        "{} critical sections ({want_gpu} by {n} GPU threads, {want_host} by {HOST_THREADS} host threads at the same time) on one Semaphore<Sys, {UNITS}> in managed memory: all {UNITS} units back, every section counted once ({passes}) by host and GPU fetch_adds on one word, at most {most} holders; {:.1} us per section",
        want_gpu + want_host,
        took.as_secs_f64() * 1e6 / (want_gpu + want_host) as f64
    ))
}

/// What a host participant of the latch or barrier test saw: (rounds passed, checks, errors,
/// why it stopped early).
type HostSide = (u32, u64, u64, Option<String>);

/// The host's check of a round: every slot of `data` (host threads and GPU threads).
fn check_all(words: &[AtomicU32], data: usize, slots: u32, r: u32) -> (u64, u64) {
    let errors = (0..slots)
        .filter(|&p| words[data + p as usize].load(Relaxed) != tag(r, p))
        .count();
    (slots as u64, errors as u64)
}

/// One host participant of [`rounds`]: `rounds` times, writes slot `me` of the round's buffer
/// at `data` (two buffers of `slots` words), arrives (a count-down of the round's latch, or an
/// arrival at the barrier), waits, and checks every slot.
fn participant<W: SysWords + ?Sized>(
    words: &W,
    arrivals: Arrivals,
    me: u32,
    data: usize,
    slots: u32,
    rounds: u32,
) -> HostSide {
    let (mut passed, mut checks, mut errors) = (0, 0, 0);
    let w = words.sys_words();
    for r in 0..rounds {
        let base = data + (r % 2) as usize * slots as usize;
        w[base + me as usize].store(tag(r, me), Relaxed);
        let opened = match arrivals {
            Arrivals::Latch => {
                let latch = words.latch(LATCHES + r as usize);
                latch.count_down();
                latch.wait_for(HOST_WAIT).is_ok()
            }
            Arrivals::Barrier => {
                let barrier = words.barrier(BARRIER);
                let token = barrier.arrive();
                barrier.wait_for(&token, HOST_WAIT).is_ok()
            }
        };
        if !opened {
            let why = format!("host participant {me}: round {r} never opened");
            return (passed, checks, errors, Some(why));
        }
        passed += 1;
        let (c, e) = check_all(w, base, slots, r);
        checks += c;
        errors += e;
    }
    (passed, checks, errors, None)
}

/// Sums the GPU threads' (rounds passed, checks, errors).
fn gpu_stats(s: &[u32]) -> (u64, u64, u64) {
    s.chunks(3).fold((0, 0, 0), |(p, c, e), x| {
        (p + x[0] as u64, c + x[1] as u64, e + x[2] as u64)
    })
}

/// Which of the two primitives a round-based test counts down.
#[derive(Clone, Copy, PartialEq)]
enum Arrivals {
    /// A `Latch<Sys>` per round.
    Latch,
    /// One `Barrier<Sys>` over every phase.
    Barrier,
}

/// Rounds in which 4 host threads and 4 blocks (thread 0 each, after a block barrier) count
/// down together and all wait: a fresh `Latch<Sys>` per round, or one `Barrier<Sys>` over every
/// phase. Each participant writes its slot of the round before it arrives; after the wait, each
/// host thread checks every slot (host and GPU) and each GPU thread every host slot and one of
/// the next block. Exact: every participant passed every round, every check right, every latch
/// at 0, the barrier word back to its fresh value with the last phase's parity.
fn rounds(ctx: &Ctx, arrivals: Arrivals) -> Result<String> {
    const ROUNDS: u32 = 100;
    let buf = buffer(ctx)?;
    let (kernel, data) = match arrivals {
        Arrivals::Latch => (ctx.kernel("managed_latch")?, LATCH_DATA),
        Arrivals::Barrier => (ctx.kernel("managed_barrier")?, BARRIER_DATA),
    };
    let n = BLOCKS * THREADS;
    let slots = HOST_THREADS + n;
    let participants = HOST_THREADS + BLOCKS;
    assert!(data + 2 * slots as usize <= WORDS && LATCHES + ROUNDS as usize <= LATCH_DATA);
    let words = buf.atomics_u32();
    match arrivals {
        Arrivals::Latch => {
            for r in 0..ROUNDS as usize {
                words[LATCHES + r].store(participants, Relaxed);
            }
        }
        Arrivals::Barrier => buf.barrier(BARRIER).init(participants),
    }
    let stats = ctx.gpu.zeros::<u32>(3 * n as usize)?;
    let ptr = buf.device_ptr();
    let (rounds, host_threads) = (ROUNDS, HOST_THREADS);
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(&ptr).arg(&rounds).arg(&host_threads).arg(&stats);
    let cfg = ctx.gpu.cooperative_config(&kernel, BLOCKS, THREADS, 4)?;
    let start = Instant::now();
    unsafe { b.launch_cooperative(cfg) }.map_err(|e| format!("launch: {e}"))?;
    let host: Vec<HostSide> = std::thread::scope(|s| {
        let threads: Vec<_> = (0..HOST_THREADS)
            .map(|h| {
                let buf = &buf;
                s.spawn(move || participant(buf, arrivals, h, data, slots, ROUNDS))
            })
            .collect();
        threads.into_iter().map(|t| t.join().unwrap()).collect()
    });
    // The blocks give up after their own bounded waits; the buffer must outlive the kernel.
    ctx.gpu.wait(TIMEOUT)?;
    let took = start.elapsed();
    let (gpu_passed, gpu_checks, gpu_errors) = gpu_stats(&ctx.gpu.download(&stats)?);
    let host_passed: u32 = host.iter().map(|h| h.0).sum();
    let host_checks: u64 = host.iter().map(|h| h.1).sum();
    let host_errors: u64 = host.iter().map(|h| h.2).sum();
    let lost: Vec<&str> = host.iter().filter_map(|h| h.3.as_deref()).collect();
    let (what, left_ok, left) = match arrivals {
        Arrivals::Latch => {
            let open = (0..ROUNDS as usize)
                .filter(|&r| words[LATCHES + r].load(Relaxed) == 0)
                .count();
            (
                format!("a Latch<Sys> per round ({participants} count-downs each)"),
                open == ROUNDS as usize,
                format!("{open} of {ROUNDS} latches at 0"),
            )
        }
        Arrivals::Barrier => {
            let word = words[BARRIER].load(Relaxed) as u64
                | (words[BARRIER + 1].load(Relaxed) as u64) << 32;
            let want = init_word(participants) | (ROUNDS as u64 & 1) << 63;
            (
                format!("one Barrier<Sys> of {participants} participants"),
                word == want,
                format!("barrier word {word:#x} (expected {want:#x})"),
            )
        }
    };
    let want_gpu_checks = (ROUNDS * n) as u64 * (HOST_THREADS + 1) as u64;
    let want_host_checks = (ROUNDS * HOST_THREADS) as u64 * slots as u64;
    let exact = lost.is_empty()
        && gpu_passed == (ROUNDS * n) as u64
        && host_passed == ROUNDS * HOST_THREADS
        && gpu_checks == want_gpu_checks
        && host_checks == want_host_checks
        && gpu_errors + host_errors == 0
        && left_ok;
    if !exact {
        return Err(format!(
            "GPU threads passed {gpu_passed}/{} rounds, {gpu_checks}/{want_gpu_checks} checks, {gpu_errors} errors (wrong words or timed-out waits); host threads passed {host_passed}/{} rounds, {host_checks}/{want_host_checks} checks, {host_errors} wrong words{}; {left}",
            ROUNDS * n,
            ROUNDS * HOST_THREADS,
            if lost.is_empty() { String::new() } else { format!(" ({})", lost.join("; ")) }
        )
        .into());
    }
    Ok(format!(
        "{ROUNDS} rounds of {what} in managed memory, counted down together by {HOST_THREADS} host threads and {BLOCKS} blocks (host RMWs racing GPU RMWs on one word), every waiter released every round ({} GPU threads, {HOST_THREADS} host threads); {} data checks ({want_gpu_checks} on the GPU, {want_host_checks} on the host), 0 errors; {left}; {:.1} us per round",
        n,
        want_gpu_checks + want_host_checks,
        took.as_secs_f64() * 1e6 / ROUNDS as f64
    ))
}

/// The buffer itself on a GPU: sizes refused before the driver (zero, past the cap, an
/// overflowing byte count), and one allocation whose views are its own memory at the address
/// kernels get.
fn sizes_and_views(ctx: &Ctx) -> Result<String> {
    let cap = ManagedBuffer::<u32>::MAX_BYTES;
    let mut checks = 0;
    match ctx.gpu.managed::<u32>(0) {
        Err(Error::Empty(_)) => checks += 1,
        other => return Err(format!("length 0: {other:?}").into()),
    }
    match ManagedBuffer::<u64>::new(&ctx.gpu, cap / 8 + 1) {
        Err(Error::ManagedTooLarge { len, limit, .. }) if len == cap / 8 + 1 && limit == cap => {
            checks += 1
        }
        other => return Err(format!("{} u64s: {other:?}", cap / 8 + 1).into()),
    }
    match ctx.gpu.managed::<f32>(usize::MAX) {
        Err(Error::TooLarge {
            what: "managed buffer",
            ..
        }) => checks += 1,
        other => return Err(format!("usize::MAX f32s: {other:?}").into()),
    }
    let buf = match ctx.gpu.managed::<f64>(16) {
        Err(e @ Error::NoConcurrentManagedAccess { .. }) => return skip(e),
        r => r?,
    };
    let views = buf.atomics_f64();
    if views.len() != 16 || views.as_ptr() as u64 != buf.device_ptr() {
        return Err(format!(
            "views: {} at {:p}, device_ptr {:#x}",
            views.len(),
            views.as_ptr(),
            buf.device_ptr()
        )
        .into());
    }
    views[3].store(2.5, Relaxed);
    views[3].fetch_add(0.25, Relaxed);
    let zero = (0..16)
        .filter(|&i| i != 3)
        .all(|i| views[i].load(Relaxed) == 0.0);
    if views[3].load(Relaxed) != 2.75 || !zero {
        return Err("the f64 views do not read back what they stored on zeroed memory".into());
    }
    checks += 2;
    Ok(format!(
        "{checks} checks: zero length (Empty), {} u64s (ManagedTooLarge, cap {cap} bytes), usize::MAX f32s (TooLarge) refused; 16 f64s zeroed, their views at device_ptr",
        cap / 8 + 1
    ))
}

pub fn tests() -> Vec<GpuTest> {
    crate::cases![TIMEOUT;
        "managed_buffer_sizes_and_views" => sizes_and_views,
        "managed_semaphore_host_and_gpu_rmw" => semaphore,
        "managed_latch_host_threads_and_blocks" => |c| rounds(c, Arrivals::Latch),
        "managed_barrier_host_threads_and_blocks" => |c| rounds(c, Arrivals::Barrier),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `N` zeroed words that start 8-byte aligned (the barrier at word 0).
    #[repr(C, align(8))]
    struct Aligned([AtomicU32; WORDS]);

    /// The round protocol of the latch and barrier cases on host threads only (8 participants
    /// writing, arriving and checking every slot, double-buffered): exact counts, every latch
    /// at 0, the barrier back to its fresh word with the last phase's parity.
    #[test]
    fn rounds_account_for_every_slot_on_host_threads() {
        const P: u32 = 8;
        const R: u32 = 100;
        for arrivals in [Arrivals::Latch, Arrivals::Barrier] {
            let words = Aligned(std::array::from_fn(|_| AtomicU32::new(0)));
            let w = &words.0[..];
            let data = match arrivals {
                Arrivals::Latch => {
                    (0..R as usize).for_each(|r| w[LATCHES + r].store(P, Relaxed));
                    LATCH_DATA
                }
                Arrivals::Barrier => {
                    w.barrier(BARRIER).init(P);
                    BARRIER_DATA
                }
            };
            let sides: Vec<HostSide> = std::thread::scope(|s| {
                let t: Vec<_> = (0..P)
                    .map(|me| s.spawn(move || participant(w, arrivals, me, data, P, R)))
                    .collect();
                t.into_iter().map(|t| t.join().unwrap()).collect()
            });
            for (me, (passed, checks, errors, lost)) in sides.into_iter().enumerate() {
                assert_eq!(lost, None, "participant {me}");
                assert_eq!(
                    (passed, checks, errors),
                    (R, (R * P) as u64, 0),
                    "participant {me}: (rounds, checks, errors)"
                );
            }
            match arrivals {
                Arrivals::Latch => {
                    assert!((0..R as usize).all(|r| w[LATCHES + r].load(Relaxed) == 0))
                }
                Arrivals::Barrier => {
                    let word = w[0].load(Relaxed) as u64 | (w[1].load(Relaxed) as u64) << 32;
                    assert_eq!(word, init_word(P) | (R as u64 & 1) << 63);
                }
            }
        }
    }
}
