//! Primitive-shaped litmus tests and MP at `Sys` scope between a host thread and the GPU.
//!
//! The shapes of `shapes.rs` check single accesses; these check what users build on them: data
//! written before a primitive's release-side operation (unlock, `release`, `count_down`,
//! arrive) must be what a thread reads after the matching acquire-side operation (lock,
//! `acquire`, `wait`). Every instance is one such read (a critical section, a message, a
//! neighbour's slot): `ok`, or `stale` (forbidden by the PTX memory model), or `lost` (a
//! bounded wait gave up: no correct primitive loses a handoff, so like an impossible outcome it
//! marks the run as broken). Kernels: `litmus/kernels/src/handoff.rs`.
//!
//! The semaphore-lock, token and latch rows also run as controls: the same algorithms with
//! every order relaxed (`Side::Relaxed`), where the model allows stale reads. A control that
//! shows them proves the row's check can see a primitive that does not synchronize.
//!
//! MP at `Sys` scope runs between a host thread (std atomics) and the GPU (`ld/st .sys`) on
//! mapped pinned host memory, in both directions, with loads and stores only: host and GPU
//! RMWs on one word lose updates on a GPU without native host atomics (DEVELOPMENT.md,
//! "Several GPUs").

use super::context;
use crate::oracle::Class;
use crate::report::{Outcome, Row};
use ptx_sync_host::cudarc::driver::{
    CudaSlice, DeviceRepr, LaunchArgs, LaunchConfig, PushKernelArg, ValidAsZeroBits,
};
use ptx_sync_host::ptx_sync::barrier::init_word;
use ptx_sync_host::{Device, Kernel, MappedBuffer, Module};
use ptx_sync_testkit::{launch_config, Error, Result};
use std::fmt::Display;
use std::sync::atomic::AtomicU32;
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use std::time::{Duration, Instant};

pub use crate::handoff_layout::mp_bin;
use crate::handoff_layout::{LINE, MP_BINS, NEIGHBOURS, SYS_STRIDE, WORDS};

/// The mutex of the mutex handoff (the kernel's `Mutex<Protected, Gpu>`), laid out as on the GPU.
type HandoffMutex =
    ptx_sync_host::ptx_sync::Mutex<[u32; WORDS * LINE], ptx_sync_host::ptx_sync::Gpu>;
/// u32 words of the handoff's mutex.
const MUTEX_WORDS: usize = std::mem::size_of::<HandoffMutex>().div_ceil(4);
/// u32 word where its protected words begin.
const MUTEX_DATA: usize = HandoffMutex::DATA_OFFSET / 4;

/// How long a kernel's bounded wait (a semaphore acquire, a latch or barrier wait, a `Sys`
/// poll) tries before it counts its instances as lost. Far above any healthy handoff (an
/// unfair semaphore among thousands of threads included), far below the watchdog.
const WAIT_NS: u64 = 5_000_000_000;
/// The bound on one launch of MP GPU -> host, for the host thread's polls and the kernel's
/// waits for the host's pacing word (a launch takes about a second: one instance at a time).
const PACED_WAIT: Duration = Duration::from_secs(20);

/// The sizes of every row: what `scale` multiplies. Pure, so the expected instance counts are
/// CPU-tested.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plan {
    /// Blocks of every launch: one per SM.
    pub blocks: u32,
    /// Threads per block of the mutex, latch and barrier rows.
    pub threads: u32,
    pub mutex_iters: u32,
    /// The semaphore lock is not warp-aggregated: every lane contends, so fewer threads.
    pub lock_threads: u32,
    pub lock_iters: u32,
    /// Threads per block of the token row (one channel per producer lane).
    pub token_threads: u32,
    pub token_rounds: u32,
    pub latch_rounds: u32,
    pub barrier_phases: u32,
    /// Threads per block of the `Sys` MP rows, instances per GPU thread and launch, launches.
    pub sys_threads: u32,
    pub sys_per_thread: u32,
    pub sys_launches: u32,
}

/// `base * scale`, rounded, at least 1.
pub fn scaled(base: u32, scale: f64) -> u32 {
    (base as f64 * scale).round().clamp(1.0, u32::MAX as f64) as u32
}

impl Plan {
    /// The plan for a GPU of `sms` SMs. At scale 1.0 on 132 SMs: 1.08e6 mutex sections,
    /// 2.7e5 semaphore-lock sections, 2.16e6 token messages, latch reads and barrier reads
    /// each, 5.4e5 instances per `Sys` MP row (`tests/handoff_cpu.rs` checks these).
    pub fn new(sms: u32, scale: f64) -> Plan {
        Plan {
            blocks: sms.max(2),
            threads: 256,
            mutex_iters: scaled(32, scale),
            lock_threads: 32,
            lock_iters: scaled(64, scale),
            token_threads: 128,
            token_rounds: scaled(256, scale),
            latch_rounds: scaled(32, scale),
            barrier_phases: scaled(32, scale),
            sys_threads: 128,
            // Below scale 1 the launches shrink; above it, more launches of the same size.
            sys_per_thread: scaled(16, scale.min(1.0)),
            sys_launches: scaled(2, scale.max(0.5)),
        }
    }

    pub fn mutex_instances(&self) -> u64 {
        self.blocks as u64 * self.threads as u64 * self.mutex_iters as u64
    }

    pub fn lock_instances(&self) -> u64 {
        self.blocks as u64 * self.lock_threads as u64 * self.lock_iters as u64
    }

    /// Channels of the token row: one per lane of each (producer, consumer) block pair.
    pub fn token_channels(&self) -> u64 {
        (self.blocks / 2) as u64 * self.token_threads as u64
    }

    pub fn token_instances(&self) -> u64 {
        self.token_channels() * self.token_rounds as u64
    }

    pub fn latch_instances(&self) -> u64 {
        self.grid_threads() * NEIGHBOURS as u64 * self.latch_rounds as u64
    }

    pub fn barrier_instances(&self) -> u64 {
        self.grid_threads() * NEIGHBOURS as u64 * self.barrier_phases as u64
    }

    /// `Sys` MP instances in one launch (the words the mapped buffer holds per location).
    pub fn sys_launch_instances(&self) -> u64 {
        self.blocks as u64 * self.sys_threads as u64 * self.sys_per_thread as u64
    }

    pub fn sys_instances(&self) -> u64 {
        self.sys_launch_instances() * self.sys_launches as u64
    }

    fn grid_threads(&self) -> u64 {
        self.blocks as u64 * self.threads as u64
    }
}

/// Which algorithm a handoff row runs: the crate's primitive (a claim: no stale read), or
/// the same algorithm with every order relaxed (a control: the kernel name's `_relaxed`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Side {
    Primitive,
    Relaxed,
}

impl Side {
    /// The kernel of `base` for this side.
    fn kernel_name(self, base: &str) -> String {
        match self {
            Side::Primitive => base.to_string(),
            Side::Relaxed => format!("{base}_relaxed"),
        }
    }

    /// A handoff kernel's `stats` (`[ok, stale, lost]`) as outcomes; zero counts are left out.
    /// `stale` is forbidden for the primitive and the weak outcome the model allows for the
    /// relaxed control; `lost` is impossible for both (either algorithm hands every unit
    /// over).
    pub fn outcomes(self, stats: &[u64]) -> Vec<Outcome> {
        let stale = match self {
            Side::Primitive => Class::Forbidden,
            Side::Relaxed => Class::WeakAllowed,
        };
        let kinds = [
            ("ok", Class::Sc),
            ("stale", stale),
            ("lost", Class::Impossible),
        ];
        labelled(&kinds, stats)
    }
}

/// The `Sys` MP bins (`[2y + x]` for `[y, x]` in {0, 1}, then values out of range) as
/// outcomes. `[1, 0]` (the flag seen, the data not) is forbidden; `[0, _]` (the flag not seen
/// before the poll gave up) is an SC outcome of MP; anything else is impossible (only 0 and 1
/// are ever stored). Zero counts are left out.
pub fn mp_outcomes(bins: &[u64]) -> Vec<Outcome> {
    let kinds = [
        ("[0, 0]", Class::Sc),
        ("[0, 1]", Class::Sc),
        ("[1, 0]", Class::Forbidden),
        ("[1, 1], flag already set at the first poll", Class::Sc),
        ("out of range", Class::Impossible),
        ("[1, 1], reader polled until the flag arrived", Class::Sc),
    ];
    labelled(&kinds, bins)
}

/// Outcomes from per-kind counts (`kinds[k]` labels `counts[k]`); zero counts are left out.
fn labelled(kinds: &[(&str, Class)], counts: &[u64]) -> Vec<Outcome> {
    kinds
        .iter()
        .zip(counts)
        .filter(|(_, &count)| count != 0)
        .map(|(&(label, class), &count)| Outcome {
            label: label.to_string(),
            count,
            class,
        })
        .collect()
}

/// The parts of a row every test here shares: a claim (the model forbids `stale` / `[1, 0]`).
struct RowHead {
    test: &'static str,
    variant: &'static str,
    scope: &'static str,
    placement: String,
    claim: bool,
}

impl RowHead {
    fn gpu(test: &'static str, placement: String) -> RowHead {
        RowHead::handoff(test, Side::Primitive, placement)
    }

    fn handoff(test: &'static str, side: Side, placement: String) -> RowHead {
        RowHead {
            test,
            variant: match side {
                Side::Primitive => "sync",
                Side::Relaxed => "relaxed",
            },
            scope: "gpu",
            placement,
            claim: side == Side::Primitive,
        }
    }

    fn sys(test: &'static str, variant: &'static str) -> RowHead {
        RowHead {
            test,
            variant,
            scope: "sys",
            placement: "host + GPU".to_string(),
            claim: true,
        }
    }

    fn row(self, instances: u64, outcomes: Vec<Outcome>, launches: u64, start: Instant) -> Row {
        Row {
            test: self.test.to_string(),
            variant: self.variant.to_string(),
            scope: self.scope.to_string(),
            placement: self.placement,
            instances,
            outcomes,
            launches,
            seconds: start.elapsed().as_secs_f64(),
            claim: self.claim,
        }
    }
}

/// Turns an error into `test: what: error` (a failed check).
fn ctx<E: Display>(test: &str, what: &str) -> impl FnOnce(E) -> Error {
    context(format!("{test}: {what}"))
}

/// The one host-side time limit per launch: generous (the rows take seconds at scale 1), so
/// only a hang reaches it; it grows with the scale.
fn watchdog(scale: f64) -> Duration {
    Duration::from_secs_f64(60.0 * scale.max(1.0))
}

/// Everything a row's launches need.
struct Env<'a> {
    gpu: &'a Device,
    module: &'a Module,
    plan: Plan,
    limit: Duration,
}

impl Env<'_> {
    fn kernel(&self, test: &str, name: &str) -> Result<Kernel> {
        self.module
            .kernel(name)
            .map_err(ctx(test, "loading the kernel"))
    }

    /// Kernel `base` of `side` and its cooperative launch of `blocks x threads` with `smem`
    /// bytes of dynamic shared memory: these kernels wait on other blocks, which only makes
    /// progress if all of them are resident, so a grid that cannot be is an error.
    fn coop(
        &self,
        test: &str,
        side: Side,
        base: &str,
        threads: u32,
        smem: u32,
    ) -> Result<(Kernel, LaunchConfig)> {
        let kernel = self.kernel(test, &side.kernel_name(base))?;
        let cfg = self
            .gpu
            .cooperative_config(&kernel, self.plan.blocks, threads, smem)
            .map_err(ctx(test, "sizing the cooperative launch"))?;
        Ok((kernel, cfg))
    }

    /// Launches a handoff kernel: the arguments `args` pushes, then the `stats` every handoff
    /// kernel takes last (`[ok, stale, lost]`, u64, zeroed); waits for it (under the watchdog's
    /// limit) and returns the stats.
    fn launch<'a>(
        &'a self,
        test: &str,
        (kernel, cfg): &'a (Kernel, LaunchConfig),
        args: impl FnOnce(&mut LaunchArgs<'a>),
    ) -> Result<Vec<u64>> {
        let stats = self.zeros::<u64>(test, 3)?;
        let mut b = self.gpu.stream().launch_builder(kernel.function());
        args(&mut b);
        // The same builder, for a lifetime `stats` outlives.
        let mut b: LaunchArgs<'_> = b;
        b.arg(&stats);
        // SAFETY: the arguments (the caller's, then `stats`) match the kernel's signature and
        // the buffers' sizes its layout.
        unsafe { b.launch_cooperative(*cfg) }.map_err(ctx(test, "launching"))?;
        self.wait(test)?;
        self.download(test, &stats)
    }

    fn zeros<T: DeviceRepr + ValidAsZeroBits>(&self, test: &str, n: usize) -> Result<CudaSlice<T>> {
        self.gpu.zeros(n).map_err(ctx(test, "allocating"))
    }

    /// `n` words, zero except `value` at every `LINE`-th word (one primitive per line).
    fn per_line(
        &self,
        test: &str,
        n: usize,
        value: impl Fn(usize) -> u32,
    ) -> Result<CudaSlice<u32>> {
        let words: Vec<u32> = (0..n * LINE)
            .map(|w| {
                if w.is_multiple_of(LINE) {
                    value(w / LINE)
                } else {
                    0
                }
            })
            .collect();
        self.gpu.upload(&words).map_err(ctx(test, "uploading"))
    }

    fn wait(&self, test: &str) -> Result<()> {
        self.gpu.wait(self.limit).map_err(ctx(test, "running"))
    }

    fn download<T: DeviceRepr>(&self, test: &str, data: &CudaSlice<T>) -> Result<Vec<T>> {
        self.gpu.download(data).map_err(ctx(test, "copying back"))
    }
}

/// Runs the primitive-shaped tests and the host/GPU MP; `scale` multiplies instance counts.
pub fn run(gpu: &Device, module: &Module, scale: f64) -> Result<Vec<Row>> {
    let env = Env {
        gpu,
        module,
        plan: Plan::new(gpu.sm_count(), scale),
        limit: watchdog(scale),
    };
    Ok(vec![
        mutex(&env)?,
        semaphore_lock(&env, Side::Primitive)?,
        semaphore_lock(&env, Side::Relaxed)?,
        semaphore_token(&env, Side::Primitive)?,
        semaphore_token(&env, Side::Relaxed)?,
        latch(&env, Side::Primitive)?,
        latch(&env, Side::Relaxed)?,
        barrier(&env)?,
        grid_barrier(&env)?,
        mp_host_to_gpu(&env, true)?,
        mp_host_to_gpu(&env, false)?,
        mp_gpu_to_host(&env)?,
    ])
}

/// Mutex handoff (`litmus_handoff_mutex`): every critical section checks the protected words.
/// Beyond the per-section checks, the final state must account for every section: the
/// ordinal and every protected word equal the number of sections (else an error: sections
/// were lost in a way no instance could see).
fn mutex(env: &Env) -> Result<Row> {
    const TEST: &str = "mutex handoff";
    const KERNEL: &str = "litmus_handoff_mutex";
    let p = &env.plan;
    let start = Instant::now();
    let kernel = env.coop(TEST, Side::Primitive, KERNEL, p.threads, 0)?;
    let m = env.zeros::<u32>(TEST, MUTEX_WORDS)?;
    let ordinal = env.zeros::<u32>(TEST, LINE)?;
    let stats = env.launch(TEST, &kernel, |b| {
        b.arg(&m).arg(&ordinal).arg(&p.mutex_iters);
    })?;
    let expected = p.mutex_instances();
    let m = env.download(TEST, &m)?;
    let ordinal = env.download(TEST, &ordinal)?[0] as u64;
    let words: Vec<u64> = (0..WORDS)
        .map(|k| m[MUTEX_DATA + k * LINE] as u64)
        .collect();
    check_final(TEST, expected, ordinal, &words, m[0] == 0)?;
    let head = RowHead::gpu(TEST, format!("{} x {}", p.blocks, p.threads));
    Ok(head.row(expected, Side::Primitive.outcomes(&stats), 1, start))
}

/// The final state of a lock row: `ordinal` and every protected word count all `sections`
/// that ran (u32 words: compared modulo 2^32), and the lock is free.
fn check_final(
    test: &str,
    sections: u64,
    ordinal: u64,
    words: &[u64],
    lock_free: bool,
) -> Result<()> {
    let want = sections % (1 << 32);
    if ordinal != want || words.iter().any(|&w| w != want) || !lock_free {
        return Err(format!(
            "{test}: final state: ordinal {ordinal}, protected words {words:?}, lock free: \
             {lock_free} (expected {want}, {want} each, free)"
        )
        .into());
    }
    Ok(())
}

/// Semaphore lock (`litmus_handoff_semaphore_lock`): a `BinarySemaphore<Gpu>` as the lock,
/// or its relaxed control.
fn semaphore_lock(env: &Env, side: Side) -> Result<Row> {
    const TEST: &str = "semaphore lock";
    const KERNEL: &str = "litmus_handoff_semaphore_lock";
    let p = &env.plan;
    let start = Instant::now();
    let kernel = env.coop(TEST, side, KERNEL, p.lock_threads, 0)?;
    let sem = env.per_line(TEST, 1, |_| 1)?;
    let data = env.zeros::<u32>(TEST, WORDS * LINE)?;
    let ordinal = env.zeros::<u32>(TEST, LINE)?;
    let stats = env.launch(TEST, &kernel, |b| {
        b.arg(&sem)
            .arg(&data)
            .arg(&ordinal)
            .arg(&p.lock_iters)
            .arg(&WAIT_NS);
    })?;
    let expected = p.lock_instances();
    // Lost sections never ran: the final state counts only those that did.
    let ran = stats[0] + stats[1];
    let data = env.download(TEST, &data)?;
    let ordinal = env.download(TEST, &ordinal)?[0] as u64;
    let sem = env.download(TEST, &sem)?[0];
    let words: Vec<u64> = (0..WORDS).map(|k| data[k * LINE] as u64).collect();
    // A free binary semaphore holds its one unit. Under the relaxed control a section may
    // write over newer values it never saw, so only the ordinal and the unit must add up.
    let words: &[u64] = if side == Side::Relaxed { &[] } else { &words };
    check_final(TEST, ran, ordinal, words, sem == 1)?;
    let head = RowHead::handoff(TEST, side, format!("{} x {}", p.blocks, p.lock_threads));
    Ok(head.row(expected, side.outcomes(&stats), 1, start))
}

/// Semaphore token (`litmus_handoff_semaphore_token`): producer -> consumer messages through
/// a `full` / `empty` pair of `BinarySemaphore<Gpu>` per channel, or of its relaxed control.
fn semaphore_token(env: &Env, side: Side) -> Result<Row> {
    const TEST: &str = "semaphore token";
    const KERNEL: &str = "litmus_handoff_semaphore_token";
    let p = &env.plan;
    let start = Instant::now();
    let kernel = env.coop(TEST, side, KERNEL, p.token_threads, 0)?;
    let channels = p.token_channels() as usize;
    let full = env.zeros::<u32>(TEST, channels * LINE)?;
    let empty = env.per_line(TEST, channels, |_| 1)?;
    let payload = env.zeros::<u32>(TEST, channels * WORDS * LINE)?;
    let stats = env.launch(TEST, &kernel, |b| {
        b.arg(&full)
            .arg(&empty)
            .arg(&payload)
            .arg(&p.token_rounds)
            .arg(&WAIT_NS);
    })?;
    let pairs = p.blocks / 2;
    let head = RowHead::handoff(TEST, side, format!("{pairs} pairs x {}", p.token_threads));
    Ok(head.row(p.token_instances(), side.outcomes(&stats), 1, start))
}

/// Latch (`litmus_handoff_latch`): a fresh `Latch<Gpu>` (or its relaxed control) per round,
/// counted down by thread 0 of each block (even rounds: `blocks`) or by every thread (odd
/// rounds: `blocks * threads`).
fn latch(env: &Env, side: Side) -> Result<Row> {
    const TEST: &str = "latch";
    const KERNEL: &str = "litmus_handoff_latch";
    let p = &env.plan;
    let start = Instant::now();
    let kernel = env.coop(TEST, side, KERNEL, p.threads, 0)?;
    let (blocks, threads) = (p.blocks, p.threads);
    let latches = env.per_line(TEST, p.latch_rounds as usize, |r| {
        if r % 2 == 0 {
            blocks
        } else {
            blocks * threads
        }
    })?;
    let slots = env.zeros::<u32>(TEST, 2 * (blocks * threads) as usize)?;
    let stats = env.launch(TEST, &kernel, |b| {
        b.arg(&latches)
            .arg(&p.latch_rounds)
            .arg(&slots)
            .arg(&WAIT_NS);
    })?;
    let head = RowHead::handoff(TEST, side, format!("{blocks} x {threads}"));
    Ok(head.row(p.latch_instances(), side.outcomes(&stats), 1, start))
}

/// Barrier (`litmus_handoff_barrier`): one `Barrier<Gpu>` of `blocks` arrivals (thread 0 of
/// each block), 4 bytes of dynamic shared memory for its wait's result.
fn barrier(env: &Env) -> Result<Row> {
    const TEST: &str = "barrier";
    const KERNEL: &str = "litmus_handoff_barrier";
    let p = &env.plan;
    let start = Instant::now();
    let kernel = env.coop(TEST, Side::Primitive, KERNEL, p.threads, 4)?;
    // A fresh Barrier<Gpu>: one u64 (device/src/barrier.rs).
    let bar = env
        .gpu
        .upload(&[init_word(p.blocks)])
        .map_err(ctx(TEST, "uploading"))?;
    let slots = env.zeros::<u32>(TEST, 2 * (p.blocks * p.threads) as usize)?;
    let stats = env.launch(TEST, &kernel, |b| {
        b.arg(&bar).arg(&p.barrier_phases).arg(&slots).arg(&WAIT_NS);
    })?;
    let head = RowHead::gpu(TEST, format!("{} x {}", p.blocks, p.threads));
    Ok(head.row(
        p.barrier_instances(),
        Side::Primitive.outcomes(&stats),
        1,
        start,
    ))
}

/// Grid barrier (`litmus_handoff_grid_barrier`): `GridBarrier` over the cooperative grid.
fn grid_barrier(env: &Env) -> Result<Row> {
    const TEST: &str = "grid barrier";
    const KERNEL: &str = "litmus_handoff_grid_barrier";
    let p = &env.plan;
    let start = Instant::now();
    let kernel = env.coop(TEST, Side::Primitive, KERNEL, p.threads, 0)?;
    let bar = env.zeros::<u32>(TEST, LINE)?;
    let slots = env.zeros::<u32>(TEST, 2 * (p.blocks * p.threads) as usize)?;
    let stats = env.launch(TEST, &kernel, |b| {
        b.arg(&bar).arg(&p.barrier_phases).arg(&slots);
    })?;
    let head = RowHead::gpu(TEST, format!("{} x {}", p.blocks, p.threads));
    Ok(head.row(
        p.barrier_instances(),
        Side::Primitive.outcomes(&stats),
        1,
        start,
    ))
}

/// The `Sys` MP locations of one launch in mapped memory: `x_i` at `i * SYS_STRIDE`, `y_i` at
/// `(n + i) * SYS_STRIDE`, the GPU -> host pacing word `go` at `2n * SYS_STRIDE` (as the
/// kernels index them).
struct SysWords {
    buf: MappedBuffer<u32>,
    n: usize,
}

impl SysWords {
    fn new(env: &Env, test: &str) -> Result<SysWords> {
        let n = env.plan.sys_launch_instances() as usize;
        let buf = MappedBuffer::<u32>::new(env.gpu, (2 * n + 1) * SYS_STRIDE)
            .map_err(ctx(test, "allocating mapped host memory"))?;
        Ok(SysWords { buf, n })
    }

    fn x(&self, i: usize) -> &AtomicU32 {
        &self.buf.atomics_u32()[i * SYS_STRIDE]
    }

    fn y(&self, i: usize) -> &AtomicU32 {
        &self.buf.atomics_u32()[(self.n + i) * SYS_STRIDE]
    }

    fn go(&self) -> &AtomicU32 {
        &self.buf.atomics_u32()[2 * self.n * SYS_STRIDE]
    }

    /// Back to 0 between launches (the GPU is idle: plain relaxed stores suffice, and the
    /// next launch orders them before its kernel).
    fn clear(&self) {
        for i in 0..self.n {
            self.x(i).store(0, Relaxed);
            self.y(i).store(0, Relaxed);
        }
        self.go().store(0, Relaxed);
    }

    fn sys_config(&self, env: &Env) -> LaunchConfig {
        launch_config(env.plan.blocks, env.plan.sys_threads, 0)
    }
}

/// MP host -> GPU (`litmus_sys_mp_host_to_gpu_{acquire,relaxed}`): while the kernel polls,
/// this thread stores `x_i = 1` (Relaxed) then `y_i = 1` (Release) for every instance in the
/// order the GPU threads consume them. GPU threads only wait for the host, never for each
/// other, so an ordinary launch is enough.
fn mp_host_to_gpu(env: &Env, x_acquire: bool) -> Result<Row> {
    const TEST: &str = "MP host->GPU";
    let (name, variant) = if x_acquire {
        ("litmus_sys_mp_host_to_gpu_acquire", "sync")
    } else {
        ("litmus_sys_mp_host_to_gpu_relaxed", "sync, x relaxed")
    };
    let p = &env.plan;
    let start = Instant::now();
    let kernel = env.kernel(TEST, name)?;
    let words = SysWords::new(env, TEST)?;
    let bins = env.zeros::<u64>(TEST, MP_BINS)?;
    let (ptr, n) = (words.buf.device_ptr(), words.n as u32);
    for launch in 0..p.sys_launches {
        if launch > 0 {
            words.clear();
        }
        let mut b = env.gpu.stream().launch_builder(kernel.function());
        b.arg(&ptr).arg(&n).arg(&WAIT_NS).arg(&bins);
        // SAFETY: the arguments match the kernel's signature; the mapped buffer holds 2n
        // locations and outlives the launch (we wait below).
        unsafe { b.launch(words.sys_config(env)) }.map_err(ctx(TEST, "launching"))?;
        for i in 0..words.n {
            words.x(i).store(1, Relaxed);
            words.y(i).store(1, Release);
        }
        env.wait(TEST)?;
    }
    let bins = env.download(TEST, &bins)?;
    Ok(RowHead::sys(TEST, variant).row(
        p.sys_instances(),
        mp_outcomes(&bins),
        p.sys_launches as u64,
        start,
    ))
}

/// MP GPU -> host (`litmus_sys_mp_gpu_to_host`, one warp): for each instance in turn this
/// thread stores the pacing word `go = i + 1`, then polls `y_i` (Acquire) until it reads 1 or
/// [`PACED_WAIT`] since the launch has passed, then loads `x_i` (Relaxed: the acquire orders
/// it). The GPU lane that owns `i` stores `x_i` then `y_i` (`st.release.sys`) once it reads
/// `go > i`, so the host is already polling when the writes arrive: the two sides race on
/// every instance (the row's "polled until the flag arrived" count says how many did).
fn mp_gpu_to_host(env: &Env) -> Result<Row> {
    const TEST: &str = "MP GPU->host";
    let p = &env.plan;
    let start = Instant::now();
    let kernel = env.kernel(TEST, "litmus_sys_mp_gpu_to_host")?;
    let words = SysWords::new(env, TEST)?;
    let (ptr, n) = (words.buf.device_ptr(), words.n as u32);
    let timeout_ns = PACED_WAIT.as_nanos() as u64;
    let warp = launch_config(1, 32, 0);
    let mut bins = [0u64; MP_BINS];
    for launch in 0..p.sys_launches {
        if launch > 0 {
            words.clear();
        }
        let mut b = env.gpu.stream().launch_builder(kernel.function());
        b.arg(&ptr).arg(&n).arg(&timeout_ns);
        // SAFETY: the arguments match the kernel's signature; the mapped buffer holds 2n
        // locations and the pacing word, and outlives the launch (we wait below).
        unsafe { b.launch(warp) }.map_err(ctx(TEST, "launching"))?;
        let deadline = Instant::now() + PACED_WAIT;
        for i in 0..words.n {
            words.go().store(i as u32 + 1, Relaxed);
            let (y, waited) = poll_flag(words.y(i), deadline);
            let x = words.x(i).load(Relaxed);
            bins[mp_bin(y, x, waited)] += 1;
        }
        env.wait(TEST)?;
    }
    Ok(RowHead::sys(TEST, "sync").row(
        p.sys_instances(),
        mp_outcomes(&bins),
        p.sys_launches as u64,
        start,
    ))
}

/// Polls `flag` (Acquire) until it is non-zero or `deadline` has passed; returns the last value
/// read. The clock is read once every 1024 polls (a poll is a few ns; the clock costs more).
fn poll_flag(flag: &AtomicU32, deadline: Instant) -> (u32, bool) {
    let mut polls = 0u32;
    loop {
        let v = flag.load(Acquire);
        if v != 0 {
            return (v, polls > 0);
        }
        polls = polls.wrapping_add(1);
        if polls.is_multiple_of(1024) && Instant::now() >= deadline {
            return (v, true);
        }
        std::hint::spin_loop();
    }
}
