//! Rust kernels synchronizing across PEs on NVSHMEM (one process per GPU, one PE per process):
//! a ring of `put_signal` messages, an all-to-all with counted signals, barrier rounds over
//! remote atomic counters, a lock made of NVSHMEM's remote atomics and ptx-sync's own
//! `Mutex<u64, Sys>`, `Latch<Sys>` and `Barrier<Sys>` (with a completion) on PE 0's memory
//! reached through `Symmetric::ptr`, the data-then-signal handoff litmus with its controls, and
//! a PE that exits early. Kernels: tests/nvshmem-kernels; layouts and tags:
//! nvshmem_plan.rs.
//!
//! Each case runs in the runner's child process as usual; there it is the launcher
//! ([`LocalLauncher`]): it starts this same program once per PE (`--one NAME`, with
//! `PTX_SYNC_PE` and the rendezvous in the environment), each PE runs [`run_pe`] and prints
//! one `nvshmem-stats` line per check, and the launcher checks every PE's counts exactly. With
//! fewer than two GPUs, or without NVSHMEM's host library, the cases skip, saying why.

#[path = "nvshmem_plan.rs"]
pub mod plan;

use crate::{skip, GpuTest};
use plan::{handoff::Variant, stat};
use ptx_sync_host::cudarc::driver::PushKernelArg;
use ptx_sync_host::nvshmem::{self, LocalLauncher, PeOutcome, World};
use ptx_sync_host::ptx_sync::barrier::init_word;
use ptx_sync_host::{launch_config, Device, Error, Module};
use ptx_sync_testkit::Result;
use std::path::Path;
use std::time::{Duration, Instant};

/// The runner's limit for each case (its process, and the PEs it starts, are killed after it).
const TIMEOUT: Duration = Duration::from_secs(180);
/// How long a PE waits for its kernel (the watchdog).
const GPU_WAIT: Duration = Duration::from_secs(60);
/// PEs per case: one per GPU of a two-GPU machine.
const PES: u32 = 2;
/// The PTX of tests/nvshmem-kernels inside the PTX directory.
pub const NVSHMEM_PTX: &str = "ptx_sync_nvshmem_test_kernels.ptx";

/// The cases.
pub fn tests() -> Vec<GpuTest> {
    crate::cases![TIMEOUT;
        "nvshmem_ring_put_signal" => |ctx| launch_case("nvshmem_ring_put_signal", &ctx.ptx_dir),
        "nvshmem_all_to_all_signals" => |ctx| launch_case("nvshmem_all_to_all_signals", &ctx.ptx_dir),
        "nvshmem_barrier_remote_atomics" => |ctx| launch_case("nvshmem_barrier_remote_atomics", &ctx.ptx_dir),
        "nvshmem_lock_remote_atomics" => |ctx| launch_case("nvshmem_lock_remote_atomics", &ctx.ptx_dir),
        "nvshmem_sys_mutex_through_ptr" => |ctx| launch_case("nvshmem_sys_mutex_through_ptr", &ctx.ptx_dir),
        "nvshmem_sys_latch_through_ptr" => |ctx| launch_case("nvshmem_sys_latch_through_ptr", &ctx.ptx_dir),
        "nvshmem_sys_barrier_through_ptr" => |ctx| launch_case("nvshmem_sys_barrier_through_ptr", &ctx.ptx_dir),
        "nvshmem_handoff_litmus" => |ctx| launch_case("nvshmem_handoff_litmus", &ctx.ptx_dir),
        "nvshmem_pe_exits_early" => |ctx| launch_case("nvshmem_pe_exits_early", &ctx.ptx_dir),
        "nvshmem_example_ring_allreduce" => |_| ring_allreduce_example(),
    ]
}

/// Whether this process is a PE that a case's launcher started.
pub fn is_pe() -> bool {
    std::env::var_os("PTX_SYNC_PE").is_some()
}

/// Runs the staged examples/ring-allreduce binary (next to this runner, or
/// `$PTX_SYNC_RING_ALLREDUCE`) as a user would, with no arguments: it starts one PE per GPU
/// itself; every PE must print `ok`.
fn ring_allreduce_example() -> Result<String> {
    let gpus = Device::count()?;
    if gpus < PES as usize {
        return skip(format!("needs {PES} GPUs, this machine has {gpus}"));
    }
    let bin = match std::env::var_os("PTX_SYNC_RING_ALLREDUCE") {
        Some(p) => p.into(),
        None => std::env::current_exe()
            .map_err(|e| format!("current_exe: {e}"))?
            .with_file_name("ring-allreduce"),
    };
    if !bin.is_file() {
        return skip(format!(
            "{} is not here (cargo xtask stage puts it next to the runner)",
            bin.display()
        ));
    }
    let start = Instant::now();
    let out = std::process::Command::new(&bin)
        .output()
        .map_err(|e| format!("running {}: {e}", bin.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let oks: Vec<&str> = text.lines().filter(|l| l.contains(": ok: ")).collect();
    if !out.status.success() || oks.len() != gpus {
        return Err(format!(
            "ring-allreduce ended with {} and {} `ok` lines (want {gpus}):\n{text}\n{}",
            out.status,
            oks.len(),
            String::from_utf8_lossy(&out.stderr)
        )
        .into());
    }
    Ok(format!(
        "{:.1} s, one command: {}",
        start.elapsed().as_secs_f64(),
        oks.join(" | ")
    ))
}

// ---- the launcher side -------------------------------------------------------------------

/// One `nvshmem-stats` line a PE printed: `nvshmem-stats pe=P what=W v0 v1 ...`.
#[derive(Debug)]
struct Stats {
    pe: u32,
    what: String,
    values: Vec<u64>,
}

fn parse_stats(out: &PeOutcome) -> Vec<Stats> {
    out.stdout
        .lines()
        .filter_map(|l| l.strip_prefix("nvshmem-stats "))
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            let pe = it.next()?.strip_prefix("pe=")?.parse().ok()?;
            let what = it.next()?.strip_prefix("what=")?.to_string();
            let values = it.map(|v| v.parse().ok()).collect::<Option<Vec<u64>>>()?;
            Some(Stats { pe, what, values })
        })
        .collect()
}

/// The PE's own result line (`OK ...`/`ERR ...`/`SKIP ...`, the runner's format).
fn result_line(out: &PeOutcome) -> String {
    out.stdout
        .lines()
        .rev()
        .find(|l| l.starts_with("OK ") || l.starts_with("ERR ") || l.starts_with("SKIP "))
        .unwrap_or("(no result line)")
        .to_string()
}

fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n    ")
}

/// Starts the PEs of case `name`, waits for them, and checks their counts.
fn launch_case(name: &str, ptx_dir: &Path) -> Result<String> {
    let gpus = Device::count()?;
    if gpus < PES as usize {
        return skip(format!(
            "needs {PES} GPUs (one PE each), this machine has {gpus}"
        ));
    }
    if let Err(e) = nvshmem::library_path() {
        return skip(format!("NVSHMEM's host library is not available: {e}"));
    }
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let ptx = ptx_dir.join(NVSHMEM_PTX);
    if !ptx.is_file() {
        return Err(format!(
            "{} is missing: stage the suite with `cargo xtask stage`",
            ptx.display()
        )
        .into());
    }
    let start = Instant::now();
    let args: Vec<std::ffi::OsString> = vec![
        "--one".into(),
        name.into(),
        "--ptx-dir".into(),
        ptx_dir.into(),
    ];
    let outs = LocalLauncher::new(&exe)
        .args(args)
        .n_pes(PES)
        .capture_output(true)
        // Below the runner's limit, so a PE that hangs is killed here and its output reported.
        .limit(TIMEOUT - Duration::from_secs(30))
        .run()?;
    let took = start.elapsed();
    let mut stats = Vec::new();
    for o in &outs {
        stats.extend(parse_stats(o));
    }
    let check = match name {
        "nvshmem_pe_exits_early" => return check_early_exit(&outs, took),
        _ => {
            for o in &outs {
                let line = result_line(o);
                if let Some(why) = line.strip_prefix("SKIP ") {
                    return skip(format!("PE {}: {why}", o.pe));
                }
                if !o.status.success() || !line.starts_with("OK ") {
                    return Err(format!(
                        "PE {} ended with {} and `{line}`; its last output:\n    {}\n    {}",
                        o.pe,
                        o.describe(),
                        tail(&o.stdout, 8),
                        tail(&o.stderr, 8)
                    )
                    .into());
                }
            }
            expected(name, &stats)?
        }
    };
    Ok(format!(
        "{PES} PEs on {PES} GPUs, {:.1} s with init: {check}",
        took.as_secs_f64()
    ))
}

fn get<'a>(stats: &'a [Stats], pe: u32, what: &str) -> Result<&'a [u64]> {
    stats
        .iter()
        .find(|s| s.pe == pe && s.what == what)
        .map(|s| s.values.as_slice())
        .ok_or_else(|| format!("PE {pe} printed no `{what}` stats").into())
}

/// Compares every PE's `what` stats with `want` exactly.
fn expect_all(stats: &[Stats], what: &str, want: &[u64]) -> Result<()> {
    for pe in 0..PES {
        let got = get(stats, pe, what)?;
        if got != want {
            return Err(format!("PE {pe} `{what}`: got {got:?}, want {want:?}").into());
        }
    }
    Ok(())
}

// Sizes of each case (shared by both sides through these constants).
const RING: (u32, u32, u32) = (128, 1024, 1000); // threads, words, rounds
const A2A: (u32, u32, u32) = (128, 512, 500);
const ROUNDS: (u32, u32) = (64, 200); // threads, rounds
const AMO_LOCK: (u32, u32, u32) = (2, 32, 10); // blocks, threads, iterations
const SYS_MUTEX: (u32, u32, u32) = (4, 64, 20);
const SYS_LATCH: (u32, u32, u32) = (2, 64, 50); // blocks per PE, threads, rounds
const SYS_BARRIER: (u32, u32, u32) = (2, 64, 100);
const HANDOFF: (u32, u32) = (64, 2000); // words, rounds

fn expected(name: &str, stats: &[Stats]) -> Result<String> {
    let n = PES as u64;
    Ok(match name {
        "nvshmem_ring_put_signal" => {
            let (_, words, rounds) = RING;
            let ok = words as u64 * rounds as u64;
            expect_all(stats, "ring", &[ok, 0, rounds as u64, 0])?;
            format!("{rounds} rounds of a {words}-word put_signal_block around the ring: every PE checked {ok} payload words, all right (the signal never overtook its data)")
        }
        "nvshmem_all_to_all_signals" => {
            let (_, words, rounds) = A2A;
            let ok = words as u64 * rounds as u64 * (n - 1);
            expect_all(stats, "all_to_all", &[ok, 0, rounds as u64, 0])?;
            format!("{rounds} rounds of all-to-all, {words} words per peer, counted signals (Add 1, wait for n-1 per round), sync_all between rounds: {ok} words right per PE, 0 wrong")
        }
        "nvshmem_barrier_remote_atomics" => {
            let (threads, rounds) = ROUNDS;
            let reads = rounds as u64 * n;
            let last = plan::rounds::expected(PES, threads, rounds - 1);
            expect_all(stats, "rounds", &[reads, 0, rounds as u64, 0])?;
            expect_all(stats, "final", &[last])?;
            format!("{rounds} rounds: {threads} threads per PE atomic_add to every PE, barrier_all, counter read locally and by atomic_fetch from every peer: {reads} reads per PE, each exactly n*threads*(r+1); final counters {last}")
        }
        "nvshmem_lock_remote_atomics" => {
            let (blocks, threads, iters) = AMO_LOCK;
            let per_pe = (blocks * threads * iters) as u64;
            expect_all(stats, "lock", &[per_pe, 0, 0, 0])?;
            let counter = get(stats, 0, "counter")?;
            if counter != [per_pe * n] {
                return Err(format!(
                    "the counter the lock protects ended at {counter:?}, want {} (lost updates)",
                    per_pe * n
                )
                .into());
            }
            format!("a spin lock of remote atomic_compare_swap / atomic_set on PE 0, taken {per_pe} times per PE by {} threads each, guarding g+p increments: counter exactly {}", blocks * threads, per_pe * n)
        }
        "nvshmem_sys_mutex_through_ptr" => {
            let (blocks, threads, iters) = SYS_MUTEX;
            let per_pe = (blocks * threads * iters) as u64;
            expect_all(stats, "mutex", &[per_pe, 0, 0, 0])?;
            let counter = get(stats, 0, "counter")?;
            if counter != [per_pe * n] {
                return Err(format!(
                    "Mutex<u64, Sys> on PE 0 ended at {counter:?}, want {}",
                    per_pe * n
                )
                .into());
            }
            format!("ptx-sync's Mutex<u64, Sys> in PE 0's symmetric memory through ptr(0), {} threads per PE x {iters}: counter exactly {}", blocks * threads, per_pe * n)
        }
        "nvshmem_sys_latch_through_ptr" => {
            let (blocks, threads, rounds) = SYS_LATCH;
            let total_blocks = blocks as u64 * n;
            let ok = rounds as u64 * (blocks * threads) as u64 * total_blocks;
            expect_all(stats, "latch", &[ok, 0, 0, 0])?;
            format!("{rounds} rounds of a fresh Latch<Sys> in PE 0's memory through ptr(0), counted down by all {} threads of both GPUs: {ok} peer words right per PE, 0 stale, 0 timeouts", total_blocks * threads as u64)
        }
        "nvshmem_sys_barrier_through_ptr" => {
            let (blocks, threads, phases) = SYS_BARRIER;
            let total_blocks = blocks as u64 * n;
            let ok = phases as u64 * (blocks * threads) as u64 * total_blocks;
            expect_all(stats, "barrier", &[ok, 0, 0, 0])?;
            let count = get(stats, 0, "phase_count")?;
            if count != [phases as u64] {
                return Err(format!(
                    "the completion's phase count on PE 0 is {count:?}, want [{phases}]"
                )
                .into());
            }
            format!("{phases} phases of one Barrier<Sys> with a completion in PE 0's memory through ptr(0), all {} threads of both GPUs: completion ran once per phase, {ok} peer words right per PE, 0 stale", total_blocks * threads as u64)
        }
        "nvshmem_handoff_litmus" => {
            let (words, rounds) = HANDOFF;
            let all = words as u64 * rounds as u64;
            let mut parts = Vec::new();
            for v in plan::handoff::ALL {
                let s = get(stats, 1, &format!("handoff_{v:?}"))?;
                let (ok, stale) = (s[0], s[1]);
                if ok + stale != all {
                    return Err(format!("{v:?}: {ok} + {stale} words, want {all}").into());
                }
                match v {
                    Variant::PutSignal | Variant::PutFenceSignal if stale != 0 => {
                        return Err(format!("{v:?}: {stale} of {all} words stale after the signal").into())
                    }
                    Variant::SignalFirst if stale == 0 => {
                        return Err(format!("the SignalFirst control showed no stale word in {all}: the litmus cannot tell a broken order from a working one").into())
                    }
                    _ => {}
                }
                parts.push(format!("{v:?} {stale} stale"));
            }
            format!(
                "{rounds} rounds x {words} words PE 0 -> PE 1: {}",
                parts.join(", ")
            )
        }
        other => return Err(format!("no expectation for {other}").into()),
    })
}

fn check_early_exit(outs: &[PeOutcome], took: Duration) -> Result<String> {
    let (pe0, pe1) = match outs {
        [a, b] => (a, b),
        _ => return Err(format!("{} PE outcomes, want 2", outs.len()).into()),
    };
    let line = result_line(pe0);
    // PE 0's case passes when its wait ended with an error naming PE 1.
    if !line.starts_with("OK ") || !line.contains("PE 1") {
        return Err(format!(
            "PE 0 ended with {} and `{line}`, want an error naming PE 1; its output:\n    {}\n    {}",
            pe0.describe(),
            tail(&pe0.stdout, 8),
            tail(&pe0.stderr, 8)
        )
        .into());
    }
    Ok(format!(
        "PE 1 exited after init ({}); PE 0's kernel waiting for its signal ended with `{}` after {:.1} s; both processes ended",
        pe1.describe(),
        line.trim_start_matches("OK "),
        took.as_secs_f64()
    ))
}

// ---- the PE side -------------------------------------------------------------------------

fn print_stats(pe: u32, what: &str, values: &[u64]) {
    let v: Vec<String> = values.iter().map(|x| x.to_string()).collect();
    println!("nvshmem-stats pe={pe} what={what} {}", v.join(" "));
}

/// The four statistics words ([`plan::stat`]) of a kernel, as u64.
fn stats4(
    world: &World,
    stats: &ptx_sync_host::cudarc::driver::CudaSlice<u32>,
) -> Result<Vec<u64>> {
    let s = world.gpu().download(stats)?;
    Ok(s[..4].iter().map(|&x| x as u64).collect())
}

/// Launches `kernel` cooperatively on this PE's GPU with the given u64/u32 scalars and waits.
fn run(
    world: &World,
    module: &Module,
    kernel: &str,
    grid: u32,
    block: u32,
    shared: u32,
    args: &[Arg],
) -> Result<()> {
    let k = module.kernel(kernel)?;
    let gpu = world.gpu();
    let mut l = gpu.launch_builder(&k);
    for a in args {
        match *a {
            Arg::U64(v) => l.arg(v),
            Arg::U32(v) => l.arg(v),
        };
    }
    unsafe { l.launch_cooperative(launch_config(grid, block, shared)) }?;
    world.wait(GPU_WAIT)?;
    Ok(())
}

#[derive(Clone, Copy)]
enum Arg {
    U64(u64),
    U32(u32),
}

/// What a PE process of case `name` runs (instead of the runner's single-GPU context).
pub fn run_pe(name: &str, ptx_dir: &Path) -> Result<String> {
    let world = World::from_env()?;
    let me = world.my_pe();
    let module = world.load_ptx(ptx_dir.join(NVSHMEM_PTX))?;
    let gpu = world.gpu();
    let stats = gpu.zeros::<u32>(stat::LEN)?;
    let sp = Arg::U64(gpu_ptr(&stats));
    use Arg::*;
    match name {
        "nvshmem_ring_put_signal" => {
            let (threads, words, rounds) = RING;
            let buf = world.alloc::<u64>(plan::ring::len(words))?;
            let sig = world.alloc::<u64>(1)?;
            world.barrier_all()?;
            run(
                &world,
                &module,
                "nv_ring",
                1,
                threads,
                0,
                &[
                    U64(buf.device_ptr()),
                    U64(sig.device_ptr()),
                    U32(words),
                    U32(rounds),
                    sp,
                ],
            )?;
            print_stats(me, "ring", &stats4(&world, &stats)?);
        }
        "nvshmem_all_to_all_signals" => {
            let (threads, words, rounds) = A2A;
            let buf = world.alloc::<u64>(plan::all_to_all::len(words, world.n_pes()))?;
            let sig = world.alloc::<u64>(1)?;
            world.barrier_all()?;
            run(
                &world,
                &module,
                "nv_all_to_all",
                1,
                threads,
                0,
                &[
                    U64(buf.device_ptr()),
                    U64(sig.device_ptr()),
                    U32(words),
                    U32(rounds),
                    sp,
                ],
            )?;
            print_stats(me, "all_to_all", &stats4(&world, &stats)?);
        }
        "nvshmem_barrier_remote_atomics" => {
            let (threads, rounds) = ROUNDS;
            let counter = world.alloc::<u64>(1)?;
            world.barrier_all()?;
            run(
                &world,
                &module,
                "nv_barrier_atomics",
                1,
                threads,
                0,
                &[U64(counter.device_ptr()), U32(rounds), sp],
            )?;
            print_stats(me, "rounds", &stats4(&world, &stats)?);
            print_stats(me, "final", &counter.download()?);
        }
        "nvshmem_lock_remote_atomics" => {
            let (blocks, threads, iters) = AMO_LOCK;
            let buf = world.alloc::<u64>(plan::lock::LEN)?;
            world.barrier_all()?;
            run(
                &world,
                &module,
                "nv_amo_lock",
                blocks,
                threads,
                0,
                &[U64(buf.device_ptr()), U32(iters), sp],
            )?;
            print_stats(me, "lock", &stats4(&world, &stats)?);
            world.barrier_all()?;
            if me == 0 {
                print_stats(me, "counter", &[buf.download()?[plan::lock::COUNTER]]);
            }
        }
        "nvshmem_sys_mutex_through_ptr" => {
            let (blocks, threads, iters) = SYS_MUTEX;
            let buf = world.alloc::<u64>(64)?;
            world.barrier_all()?;
            run(
                &world,
                &module,
                "nv_sys_mutex",
                blocks,
                threads,
                0,
                &[U64(buf.device_ptr()), U32(iters), sp],
            )?;
            let s = stats4(&world, &stats)?;
            if s[2] != 0 {
                return skip(
                    "nvshmem_ptr(PE 0) is null on this PE: no load/store path between the GPUs",
                );
            }
            print_stats(me, "mutex", &s);
            world.barrier_all()?;
            if me == 0 {
                use ptx_sync_host::ptx_sync::{Mutex, Sys};
                let at = Mutex::<u64, Sys>::DATA_OFFSET / 8;
                print_stats(me, "counter", &[buf.download()?[at]]);
            }
        }
        "nvshmem_sys_latch_through_ptr" => {
            use crate::cases::multi_gpu::plan::latch;
            let (blocks, threads, rounds) = SYS_LATCH;
            let total = blocks * threads * world.n_pes();
            let buf = world.alloc::<u32>(latch::words(rounds, total))?;
            if me == 0 {
                let mut init = vec![0u32; latch::words(rounds, total)];
                for r in 0..rounds {
                    init[latch::latch(r)] = total;
                }
                buf.write(0, &init)?;
            }
            world.barrier_all()?;
            run(
                &world,
                &module,
                "nv_latch_rounds",
                blocks,
                threads,
                4,
                &[U64(buf.device_ptr()), U32(rounds), sp],
            )?;
            let s = stats4(&world, &stats)?;
            if s[2] != 0 {
                return skip(
                    "nvshmem_ptr(PE 0) is null on this PE: no load/store path between the GPUs",
                );
            }
            print_stats(me, "latch", &[s[0], s[1], 0, s[3]]);
        }
        "nvshmem_sys_barrier_through_ptr" => {
            use crate::cases::multi_gpu::plan::barrier;
            let (blocks, threads, phases) = SYS_BARRIER;
            let total = blocks * threads * world.n_pes();
            let buf = world.alloc::<u32>(barrier::words(total))?;
            if me == 0 {
                let mut init = vec![0u32; barrier::words(total)];
                let w = init_word(total);
                init[0] = w as u32;
                init[1] = (w >> 32) as u32;
                buf.write(0, &init)?;
            }
            world.barrier_all()?;
            run(
                &world,
                &module,
                "nv_barrier_phases",
                blocks,
                threads,
                4,
                &[U64(buf.device_ptr()), U32(phases), sp],
            )?;
            let s = stats4(&world, &stats)?;
            if s[2] != 0 {
                return skip(
                    "nvshmem_ptr(PE 0) is null on this PE: no load/store path between the GPUs",
                );
            }
            print_stats(me, "barrier", &[s[0], s[1], 0, s[3]]);
            world.barrier_all()?;
            if me == 0 {
                print_stats(me, "phase_count", &[buf.download()?[barrier::COUNT] as u64]);
            }
        }
        "nvshmem_handoff_litmus" => {
            let (words, rounds) = HANDOFF;
            for v in plan::handoff::ALL {
                let data = world.alloc::<u64>(words as usize)?;
                let sig = world.alloc::<u64>(32)?;
                let st = gpu.zeros::<u32>(stat::LEN)?;
                world.barrier_all()?;
                run(
                    &world,
                    &module,
                    "nv_handoff",
                    1,
                    1,
                    0,
                    &[
                        U64(data.device_ptr()),
                        U64(sig.device_ptr()),
                        U32(v as u32),
                        U32(words),
                        U32(rounds),
                        U64(gpu_ptr(&st)),
                    ],
                )?;
                print_stats(me, &format!("handoff_{v:?}"), &stats4(&world, &st)?);
                world.barrier_all()?;
            }
        }
        "nvshmem_pe_exits_early" => {
            let sig = world.alloc::<u64>(1)?;
            world.barrier_all()?;
            if me == 1 {
                println!("PE 1 exits now, without finalizing");
                std::process::exit(0);
            }
            let k = module.kernel("nv_wait_forever")?;
            let mut l = gpu.launch_builder(&k);
            l.arg(sig.device_ptr());
            unsafe { l.launch_cooperative(launch_config(1, 1, 0)) }?;
            let outcome = match world.wait(Duration::from_secs(15)) {
                Ok(()) => Err("the kernel waiting for PE 1's signal finished".into()),
                Err(e @ Error::PeExited { .. }) => Ok(format!("{e}")),
                Err(e) => Err(format!("want Error::PeExited naming PE 1, got: {e}").into()),
            };
            // The world is unusable now (its GPU is stuck on the kernel, its peer gone), and
            // NVSHMEM's exit handlers can hang then: report, and leave as run_local does.
            let outcome = ptx_sync_testkit::Outcome::from(outcome);
            let code = i32::from(matches!(outcome, ptx_sync_testkit::Outcome::Fail(_)));
            println!("{}", crate::runner::child_line(&outcome));
            nvshmem::exit_now(code);
        }
        other => return Err(format!("no PE body for {other}").into()),
    }
    Ok(format!("PE {me} of {}", world.n_pes()))
}

fn gpu_ptr(s: &ptx_sync_host::cudarc::driver::CudaSlice<u32>) -> u64 {
    use ptx_sync_host::cudarc::driver::DevicePtr;
    let (p, _sync) = s.device_ptr(s.stream());
    p
}
