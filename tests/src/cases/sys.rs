//! Host <-> GPU primitives at `Sys` scope on mapped pinned host memory: the host runs
//! ptx_sync's own `Semaphore<Sys>` / `Latch<Sys>` / `Atomic<u32, Sys>` (ptx_sync_host::sys,
//! core-atomics backend, `HostBackoff`) on the very words a kernel runs them on in PTX
//! (tests/kernels/src/sys.rs). Every unit, message and payload word is accounted for.

use crate::{Ctx, GpuTest};
use ptx_sync_host::cudarc::driver::PushKernelArg;
use ptx_sync_host::ptx_sync::{Atomic, Sys};
use ptx_sync_host::sys::{wait_until_for, SysWords};
use ptx_sync_host::MappedBuffer;
use ptx_sync_testkit::{launch_config, Result};
use std::sync::atomic::AtomicU32;
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(60);
/// How long the host waits for one GPU answer before calling it lost.
const HOST_WAIT: Duration = Duration::from_secs(5);

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

/// Ping-pong through two `BinarySemaphore<Sys>`s per channel, one host thread and one GPU
/// block per channel. The host and the GPU never RMW one word at the same time (the side that
/// released waits on the other word), so this needs no native host atomics.
fn ping_pong(ctx: &Ctx) -> Result<String> {
    const CHANNELS: u32 = 4;
    const ROUNDS: u32 = 2_500;
    let kernel = ctx.kernel("sys_ping_pong")?;
    let buf = MappedBuffer::<u32>::new(&ctx.gpu, CHANNELS as usize * CHANNEL)?;
    let stats = ctx.gpu.zeros::<u32>(2 * CHANNELS as usize)?;
    let ptr = buf.device_ptr();
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(&ptr).arg(&ROUNDS).arg(&stats);
    let start = Instant::now();
    unsafe { b.launch(launch_config(CHANNELS, 1, 0)) }.map_err(|e| format!("launch: {e}"))?;
    let words = buf.atomics_u32();
    let host: Vec<Result<u32>> = std::thread::scope(|s| {
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
                        if !to_host.try_acquire_for(HOST_WAIT) {
                            return Err(format!(
                                "channel {c}: no reply to round {r} within {HOST_WAIT:?}"
                            )
                            .into());
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
    ctx.gpu.wait(TIMEOUT)?;
    let s = ctx.gpu.download(&stats)?;
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
            ).into());
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

/// How the host releases the units of [`consume`] into the `Semaphore<Sys>` the GPU blocks
/// acquire from.
#[derive(Clone, Copy)]
enum Units {
    /// `window` units with one `release(window)`, each time once every unit released before
    /// is finished: every one was acquired, so the word is 0 (the host checks it) and no GPU CAS
    /// can succeed while the host adds. Host and GPU RMWs never race: the protocol
    /// ptx_sync_host::sys documents for a machine without native host atomics. Window 1 is one
    /// unit at a time.
    Batches(u32),
    /// One unit at a time, keeping up to `window` unfinished: host adds race GPU CASes on the
    /// word, which needs native host atomics (`hostNativeAtomicSupported`).
    Racing(u32),
}

/// What the host's half of [`consume`] saw.
struct Produced {
    host_errors: u32,
    early_checks: u32,
    releases: u32,
    /// Batch releases that found units left on the word (a host RMW that could race a GPU one).
    not_empty: u32,
    lost: Option<String>,
}

/// The host's half of [`consume`]: releases `n` units by `units` into the semaphore of `words`
/// (layout: tests/kernels/src/sys.rs), checking the outputs of each finished batch, and waits
/// until all `n` are done.
fn produce(words: &[AtomicU32], n: u32, units: Units) -> Produced {
    let (window, racing) = match units {
        Units::Batches(w) => (w, false),
        Units::Racing(w) => (w, true),
    };
    let sem = words.semaphore::<{ u32::MAX }>(SEM);
    let done = words.flag(DONE);
    let output = |t: u32| words[INPUT + (n + t) as usize].load(Relaxed);
    let (mut host_errors, mut early_checks, mut releases, mut not_empty) = (0u32, 0u32, 0u32, 0u32);
    let mut lost = None;
    let mut k = 0; // units released so far
    while k < n {
        let batch = if racing { 1 } else { window.min(n - k) };
        // The units that must be finished before this release.
        let need = if racing {
            (k + 1).saturating_sub(window)
        } else {
            k
        };
        if need > 0 && wait_until_for(done, HOST_WAIT, Acquire, |d| d >= need).is_err() {
            lost = Some(format!(
                "unit {} never finished (done = {})",
                need - 1,
                done.load(Relaxed)
            ));
            break;
        }
        if !racing {
            // Every unit released so far is finished: none is left on the word, and the
            // previous batch (the `window` units before k) has its outputs.
            not_empty += (words[SEM].load(Relaxed) != 0) as u32;
            let previous = k.saturating_sub(window)..k;
            host_errors += previous
                .clone()
                .filter(|&t| output(t) != !unit_tag(t))
                .count() as u32;
            early_checks += previous.len() as u32;
        }
        for t in k..k + batch {
            words[INPUT + t as usize].store(unit_tag(t), Relaxed);
        }
        sem.release(batch);
        releases += 1;
        k += batch;
    }
    if lost.is_none() && wait_until_for(done, HOST_WAIT, Acquire, |d| d >= n).is_err() {
        lost = Some(format!("only {} of {n} units finished", done.load(Relaxed)));
    }
    Produced {
        host_errors,
        early_checks,
        releases,
        not_empty,
        lost,
    }
}

/// The host releases `N` units (see [`Units`]) into one `Semaphore<Sys>` that every GPU block
/// acquires from, then one stop unit per block (once every unit is finished, so the word is 0).
/// Exact: every unit consumed once (tickets), every input and output right, no unit left.
fn consume(ctx: &Ctx, units: Units) -> Result<String> {
    const N: u32 = 5_000;
    let native = ctx.gpu.host_native_atomics()?;
    let (window, racing) = match units {
        Units::Batches(w) => (w, false),
        Units::Racing(w) => (w, true),
    };
    if racing && !native {
        return Err(format!(
            "a racing window of {window} needs hostNativeAtomicSupported = 1 (ptx_sync_host::sys)"
        )
        .into());
    }
    let blocks = ctx.gpu.sm_count();
    let kernel = ctx.kernel("sys_consume")?;
    let buf = MappedBuffer::<u32>::new(&ctx.gpu, INPUT + 2 * N as usize)?;
    let stats = ctx.gpu.zeros::<u32>(2 * blocks as usize)?;
    let ptr = buf.device_ptr();
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(&ptr).arg(&N).arg(&stats);
    let start = Instant::now();
    unsafe { b.launch(launch_config(blocks, 1, 0)) }.map_err(|e| format!("launch: {e}"))?;
    let words = buf.atomics_u32();
    let Produced {
        mut host_errors,
        early_checks,
        releases,
        not_empty,
        lost,
    } = produce(words, N, units);
    let took = start.elapsed();
    words.semaphore::<{ u32::MAX }>(SEM).release(blocks); // one stop unit per block
    ctx.gpu.wait(TIMEOUT)?;
    let s = ctx.gpu.download(&stats)?;
    let consumed: u32 = s[..blocks as usize].iter().sum();
    let gpu_errors: u32 = s[blocks as usize..].iter().sum();
    let busy = s[..blocks as usize].iter().filter(|&&c| c > 0).count();
    host_errors += (0..N)
        .filter(|&t| words[INPUT + (N + t) as usize].load(Relaxed) != !unit_tag(t))
        .count() as u32;
    let (ticket, left, fin) = (
        words[TICKET].load(Relaxed),
        words[SEM].load(Relaxed),
        words[DONE].load(Relaxed),
    );
    let exact = lost.is_none()
        && consumed == N
        && gpu_errors == 0
        && host_errors == 0
        && not_empty == 0
        && ticket == N + blocks
        && left == 0
        && fin == N;
    if !exact {
        return Err(format!(
            "{consumed}/{N} units consumed by {busy} of {blocks} blocks, {gpu_errors} GPU errors, {host_errors} wrong outputs, {not_empty} of {releases} batch releases found units left on the word, tickets {ticket} (expected {}), units left {left}, done {fin}{}",
            N + blocks,
            lost.as_deref().map(|l| format!("; {l}")).unwrap_or_default()
        ).into());
    }
    let how = if racing {
        format!("one at a time, up to {window} unfinished (host adds racing GPU CASes on the word)")
    } else if window == 1 {
        "one at a time, each once the previous one was finished (the word read 0 each time: no host RMW raced a GPU RMW)".to_string()
    } else {
        format!("in {releases} batches of up to {window}, each once every earlier unit was finished (the word read 0 each time: no host RMW raced a GPU RMW)")
    };
    Ok(format!(
        "{N} units released by the host {how} into one Semaphore<Sys>, acquired by {blocks} contending blocks ({busy} got some): every unit consumed once (tickets exact), {N} GPU input checks, {} host output checks, 0 errors, no unit left; hostNativeAtomicSupported = {}; host waits with HostBackoff; {:.2} us per unit (each unit costs up to one CAS per block on host memory)",
        N + early_checks,
        native as u32,
        took.as_secs_f64() * 1e6 / N as f64
    ))
}

/// A window of 16 units unfinished at once: racing host adds against GPU CASes where the
/// platform has native host atomics; where it has not (an x86 host over PCIe, such as this
/// project's H100), the protocol ptx_sync_host::sys documents for it, whole windows released
/// only while the word is 0. Exact either way.
fn consume_window(ctx: &Ctx) -> Result<String> {
    const WINDOW: u32 = 16;
    if ctx.gpu.host_native_atomics()? {
        consume(ctx, Units::Racing(WINDOW))
    } else {
        consume(ctx, Units::Batches(WINDOW))
            .map(|ok| format!("no native host atomics, so not racing: {ok}"))
    }
}

/// Rounds of fan-in to the host: the host raises a `Sys` flag, every block writes one word per
/// thread, and the host waits on a `Latch<Sys>` (with `HostBackoff` or a spin), then checks every
/// word. The GPU counts the latch down once per block, or (`aggregate`) once per round: the
/// blocks meet on a `Device`-scope counter in device memory and the last one counts down, which
/// checks that a `Device`-scope acq_rel chain followed by one `Sys` release carries every block's
/// writes to the host. (On the H100 both took the same time per round: the 132 blocks polling
/// the host's flag, not the count-downs, set the pace; see ptx_sync_host::sys.) The `host_spin`
/// variant measures what `HostBackoff` costs against a pure spin. Cooperative launch: the
/// host waits for every block.
fn latch_rounds(ctx: &Ctx, aggregate: bool, how: HostWait) -> Result<String> {
    const ROUNDS: u32 = 1_000;
    const THREADS: u32 = 128;
    let kernel = ctx.kernel("sys_latch_rounds")?;
    let blocks = ctx.gpu.sm_count();
    let cfg = ctx.gpu.cooperative_config(&kernel, blocks, THREADS, 4)?;
    let n = (blocks * THREADS) as usize;
    let buf = MappedBuffer::<u32>::new(&ctx.gpu, OUT + n)?;
    let stats = ctx.gpu.zeros::<u32>(blocks as usize)?;
    let arrived = ctx.gpu.zeros::<u32>(1)?;
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
            HostWait::Backoff => buf.latch(LATCH).wait_for(HOST_WAIT).is_ok(),
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
        )
        .into());
    }
    ctx.gpu.wait(TIMEOUT)?;
    let gpu_errors: u32 = ctx.gpu.download(&stats)?.iter().sum();
    if errors != 0 || gpu_errors != 0 {
        return Err(format!(
            "{errors} wrong words in {checks} checks; {gpu_errors} timed-out GPU waits"
        )
        .into());
    }
    let how_many = if aggregate {
        "once per round, by the last of the blocks meeting on a Device-scope counter"
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
            run: |c| consume(c, Units::Batches(1)),
        },
        GpuTest {
            name: "sys_semaphore_window_racing_rmw",
            timeout: TIMEOUT,
            run: consume_window,
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering::AcqRel;

    /// A consumer block of `sys_consume` (tests/kernels/src/sys.rs) on a host thread: the same
    /// types on the host backend. Returns (units consumed, errors).
    fn consumer(words: &[AtomicU32], n: u32) -> (u32, u32) {
        let sem = words.semaphore::<{ u32::MAX }>(SEM);
        let (ticket, done) = (words.flag(TICKET), words.flag(DONE));
        let (mut consumed, mut errors) = (0, 0);
        loop {
            if !sem.try_acquire_for(HOST_WAIT) {
                return (consumed, errors + 1);
            }
            let t = ticket.fetch_add(1, AcqRel);
            if t >= n {
                return (consumed, errors);
            }
            let v = words[INPUT + t as usize].load(Relaxed);
            errors += (v != unit_tag(t)) as u32;
            words[INPUT + (n + t) as usize].store(!v, Relaxed);
            done.fetch_add(1, Release);
            consumed += 1;
        }
    }

    #[test]
    fn batched_release_accounts_for_every_unit_with_the_word_empty_at_each_release() {
        const N: u32 = 2_000;
        const CONSUMERS: u32 = 3;
        let words: Vec<AtomicU32> = (0..INPUT + 2 * N as usize)
            .map(|_| AtomicU32::new(0))
            .collect();
        let words = &words[..];
        let (produced, consumers) = std::thread::scope(|s| {
            let consumers: Vec<_> = (0..CONSUMERS)
                .map(|_| s.spawn(move || consumer(words, N)))
                .collect();
            let produced = produce(words, N, Units::Batches(16));
            words.semaphore::<{ u32::MAX }>(SEM).release(CONSUMERS);
            let c: Vec<_> = consumers.into_iter().map(|c| c.join().unwrap()).collect();
            (produced, c)
        });
        assert_eq!(produced.lost, None);
        assert_eq!(
            (produced.releases, produced.not_empty, produced.host_errors),
            (125, 0, 0),
            "(batch releases, releases that found units on the word, wrong outputs)"
        );
        assert_eq!(
            produced.early_checks,
            N - 16,
            "every batch but the last checked early"
        );
        let consumed: u32 = consumers.iter().map(|c| c.0).sum();
        let errors: u32 = consumers.iter().map(|c| c.1).sum();
        assert_eq!((consumed, errors), (N, 0));
        assert_eq!(
            [TICKET, SEM, DONE].map(|i| words[i].load(Relaxed)),
            [N + CONSUMERS, 0, N]
        );
    }
}
