//! The calling-pattern matrix, arrival half: `Latch`, `Barrier`,
//! `BlockBarrier`, `Atomic` waiting and `GridBarrier`, each called by the threads of a grid in
//! the shapes real kernels use: the lanes of one warp on 2 and on 32 objects, only some lanes
//! calling (odd lanes, lane 0, a data-dependent subset), an object per thread, per 64-thread
//! tile (two warps), per block and per grid, objects in shared and in global memory.
//!
//! The host builds the tables the kernels (tests/kernels/src/patterns_arrive.rs) run from: which
//! object each thread arrives at and waits on, and which peers' values it checks once it has
//! waited. So the host knows the exact count every object must see, and checks it per object:
//! a warp that counts its lanes on one lane's object (a bug this matrix was built to catch) leaves a latch
//! short or wrapped, a barrier with the wrong phase, a counter out of its window, or a stale
//! value, and the test fails (or traps in the device crate's debug checks, or hangs into the
//! watchdog).

use crate::{skip, Ctx, GpuTest};
use ptx_sync::barrier::init_word;
use ptx_sync_host::cudarc::driver::{LaunchConfig, PushKernelArg};
use ptx_sync_testkit::{launch_config, Result};
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(60);
/// Threads per block in every test but the 2-D grid barrier (which also has 256).
const THREADS: u32 = 256;
/// tests/kernels/src/patterns_arrive.rs: NONE, PEERS.
const NONE: u32 = u32::MAX;
const PEERS: usize = 4;
/// Where a waiting thread's peers sit in its object's member list, relative to itself
/// (`usize::MAX`: half the list away).
const PEER_OFFSETS: [usize; PEERS] = [1, 2, 33, usize::MAX];
const LATCH_ROUNDS: u32 = 8;
/// A multiple of 3: each of the three ways to arrive runs as often.
const BARRIER_ROUNDS: u32 = 30;
const WAIT_ROUNDS: u32 = 8;
/// Twice an odd number: each of the two grid barriers runs an odd number of phases, so its
/// word ends at 0x8000_0000, not at its initial 0.
const GRID_ROUNDS: u32 = 2 * 501;
/// What the host writes into a latch nobody uses (it must still hold it afterwards).
const LATCH_SENTINEL: u32 = 77;
/// The size of a barrier nobody uses (its word must still be `init_word(5)` afterwards).
const BAR_SENTINEL: u32 = 5;

/// Where the objects live.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mem {
    /// Global memory, object indices grid-wide, a cooperative launch of `sm_count` blocks.
    Global,
    /// Shared memory, object indices per block, `2 * sm_count` blocks.
    Shared,
}

impl Mem {
    fn blocks(self, ctx: &Ctx) -> u32 {
        match self {
            Mem::Global => ctx.gpu.sm_count(),
            Mem::Shared => 2 * ctx.gpu.sm_count(),
        }
    }
}

/// How the threads of the grid map onto objects (`lane` = thread index in the block % 32).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Shape {
    /// Every thread, object `lane % 2`.
    Lanes2,
    /// Every thread, object `lane`.
    Lanes32,
    /// Odd lanes only, one object.
    OddLanes,
    /// Odd lanes only, object `(lane / 2) % 2`.
    OddLanes2,
    /// Lane 0 of every warp, one object.
    Lane0,
    /// The threads whose hash `h` has `h % 3 != 0` (about 2/3), object `(h >> 8) % 4`.
    Subset,
    /// One object per thread.
    PerThread,
    /// One object per 64 threads (two warps).
    Tile64,
    /// One object per block (global) / the block's only object (shared).
    Block,
    /// One object for the whole grid (global memory only).
    Grid,
    /// A latch per thread, counted down by the thread's lane partner (`lane ^ 1`).
    PartnerLane,
    /// ... by the same lane of the partner warp (`thread ^ 32`).
    PartnerWarp,
    /// ... by the same thread of the partner block (`block ^ 1`; global), or of the other
    /// half of the block (`thread ^ 128`; shared, and the last block of an odd grid).
    PartnerBlock,
}

impl Shape {
    fn describe(self, mem: Mem) -> &'static str {
        match (self, mem) {
            (Shape::Lanes2, _) => "every thread on object lane % 2",
            (Shape::Lanes32, _) => "every thread on object lane (32 objects)",
            (Shape::OddLanes, _) => "odd lanes only, one object",
            (Shape::OddLanes2, _) => "odd lanes only, object (lane / 2) % 2",
            (Shape::Lane0, _) => "lane 0 of each warp only, one object",
            (Shape::Subset, _) => "a hash-selected 2/3 of the threads, object by hash % 4",
            (Shape::PerThread, _) => "one object per thread",
            (Shape::Tile64, _) => "one object per 64-thread tile (two warps)",
            (Shape::Block, Mem::Global) => "one object per block (8 warps)",
            (Shape::Block, Mem::Shared) => "every thread of the block on one object",
            (Shape::Grid, _) => "every thread of the grid on one object",
            (Shape::PartnerLane, _) => "a latch per thread counted down by lane ^ 1",
            (Shape::PartnerWarp, _) => "a latch per thread counted down by thread ^ 32",
            (Shape::PartnerBlock, Mem::Global) => {
                "a latch per thread counted down by the same thread of block ^ 1"
            }
            (Shape::PartnerBlock, Mem::Shared) => "a latch per thread counted down by thread ^ 128",
        }
    }

    /// Objects per object space (the grid for global memory, a block for shared).
    fn objects(self, mem: Mem, blocks: u32) -> u32 {
        let per_space = |global: u32, shared: u32| match mem {
            Mem::Global => global,
            Mem::Shared => shared,
        };
        match self {
            Shape::Lanes2 | Shape::OddLanes2 => 2,
            Shape::Lanes32 => 32,
            Shape::OddLanes | Shape::Lane0 | Shape::Grid => 1,
            Shape::Subset => 4,
            Shape::PerThread | Shape::PartnerLane | Shape::PartnerWarp | Shape::PartnerBlock => {
                per_space(blocks * THREADS, THREADS)
            }
            Shape::Tile64 => per_space(blocks * THREADS / 64, THREADS / 64),
            Shape::Block => per_space(blocks, 1),
        }
    }

    /// The object thread `t` of block `b` arrives at and the one it waits on.
    fn place(self, mem: Mem, b: u32, t: u32, blocks: u32) -> (Option<u32>, Option<u32>) {
        let g = b * THREADS + t;
        let lane = t % 32;
        // A thread's index in the object space.
        let idx = |block: u32, thread: u32| match mem {
            Mem::Global => block * THREADS + thread,
            Mem::Shared => thread,
        };
        let both = |o: Option<u32>| (o, o);
        match self {
            Shape::Lanes2 => both(Some(lane % 2)),
            Shape::Lanes32 => both(Some(lane)),
            Shape::OddLanes => both((lane % 2 == 1).then_some(0)),
            Shape::OddLanes2 => both((lane % 2 == 1).then_some((lane / 2) % 2)),
            Shape::Lane0 => both((lane == 0).then_some(0)),
            Shape::Subset => {
                let h = mix(g);
                both((!h.is_multiple_of(3)).then_some((h >> 8) % 4))
            }
            Shape::PerThread => both(Some(idx(b, t))),
            Shape::Tile64 => both(Some(idx(b, t) / 64)),
            Shape::Block => both(Some(match mem {
                Mem::Global => b,
                Mem::Shared => 0,
            })),
            Shape::Grid => both(Some(0)),
            Shape::PartnerLane => (Some(idx(b, t ^ 1)), Some(idx(b, t))),
            Shape::PartnerWarp => (Some(idx(b, t ^ 32)), Some(idx(b, t))),
            Shape::PartnerBlock => {
                let partner = match mem {
                    Mem::Global if (b ^ 1) < blocks => idx(b ^ 1, t),
                    _ => idx(b, t ^ 128),
                };
                (Some(partner), Some(idx(b, t)))
            }
        }
    }
}

/// A 32-bit mixer (the finalizer of MurmurHash3 after a Weyl step): the data-dependent subsets.
fn mix(x: u32) -> u32 {
    let mut z = x.wrapping_add(0x9e37_79b9);
    z = (z ^ (z >> 16)).wrapping_mul(0x85eb_ca6b);
    z = (z ^ (z >> 13)).wrapping_mul(0xc2b2_ae35);
    z ^ (z >> 16)
}

/// The tables of one shape on one grid, and what each object must count.
struct Layout {
    blocks: u32,
    /// Threads in the grid.
    n: usize,
    /// Objects per object space, the last one a canary nobody uses.
    nobj: u32,
    /// `arrive[g]`, `wait[g]`: object indices within the thread's space, or NONE.
    arrive: Vec<u32>,
    wait: Vec<u32>,
    /// Per object (indexed `space * nobj + o`, one space for global memory, one per block for
    /// shared): threads arriving at it, threads waiting on it.
    arrivers: Vec<u32>,
    waiters: Vec<u32>,
    /// `peers[g * PEERS..]`: members of `wait[g]`'s object whose values `g` checks.
    peers: Vec<u32>,
}

impl Layout {
    fn new(shape: Shape, mem: Mem, blocks: u32) -> Layout {
        let n = (blocks * THREADS) as usize;
        let nobj = shape.objects(mem, blocks) + 1;
        let spaces = match mem {
            Mem::Global => 1,
            Mem::Shared => blocks as usize,
        };
        let total = spaces * nobj as usize;
        let (mut arrive, mut wait) = (vec![NONE; n], vec![NONE; n]);
        let (mut arrivers, mut waiters) = (vec![0u32; total], vec![0u32; total]);
        // The threads arriving at each object, in increasing order.
        let mut members: Vec<Vec<u32>> = vec![Vec::new(); total];
        let key = |b: u32, o: u32| match mem {
            Mem::Global => o as usize,
            Mem::Shared => b as usize * nobj as usize + o as usize,
        };
        for b in 0..blocks {
            for t in 0..THREADS {
                let g = (b * THREADS + t) as usize;
                let (a, w) = shape.place(mem, b, t, blocks);
                if let Some(a) = a {
                    assert!(a < nobj - 1, "{shape:?}: object {a} out of range");
                    arrive[g] = a;
                    arrivers[key(b, a)] += 1;
                    members[key(b, a)].push(g as u32);
                }
                if let Some(w) = w {
                    assert!(w < nobj - 1, "{shape:?}: object {w} out of range");
                    wait[g] = w;
                    waiters[key(b, w)] += 1;
                }
            }
        }
        let mut peers = vec![0u32; n * PEERS];
        for g in 0..n {
            let w = wait[g];
            if w == NONE {
                continue;
            }
            let list = &members[key(g as u32 / THREADS, w)];
            assert!(
                !list.is_empty(),
                "{shape:?}: thread {g} waits on an object nobody arrives at"
            );
            let pos = list.binary_search(&(g as u32)).unwrap_or(0);
            for (k, off) in PEER_OFFSETS.iter().enumerate() {
                let off = if *off == usize::MAX {
                    list.len() / 2
                } else {
                    *off
                };
                peers[g * PEERS + k] = list[(pos + off) % list.len()];
            }
        }
        Layout {
            blocks,
            n,
            nobj,
            arrive,
            wait,
            arrivers,
            waiters,
            peers,
        }
    }

    /// Threads that wait (once per round).
    fn total_waiters(&self) -> u64 {
        self.waiters.iter().map(|&w| w as u64).sum()
    }

    /// "K objects used, M..X members each".
    fn objects_summary(&self) -> String {
        let used: Vec<u32> = self.arrivers.iter().copied().filter(|&a| a > 0).collect();
        let (lo, hi) = (
            used.iter().min().copied().unwrap_or(0),
            used.iter().max().copied().unwrap_or(0),
        );
        let spread = if lo == hi {
            format!("{lo}")
        } else {
            format!("{lo}..{hi}")
        };
        format!("{} objects used, {spread} arrivals each", used.len())
    }
}

/// The kernels' `stats`.
struct Stats {
    stale: u64,
    checks: u64,
    state: u64,
    counter: u64,
    timeouts: u64,
    waits: u64,
}

impl Stats {
    fn from(s: &[u64]) -> Stats {
        Stats {
            stale: s[0],
            checks: s[1],
            state: s[2],
            counter: s[3],
            timeouts: s[4],
            waits: s[5],
        }
    }

    /// Problems: any error count not 0, `waits` or `checks` not as expected.
    fn problems(&self, want_waits: u64, want_checks: u64, state_what: &str, out: &mut Vec<String>) {
        if self.stale != 0 {
            out.push(format!("{} stale or wrong values", self.stale));
        }
        if self.state != 0 {
            out.push(format!("{} times {state_what}", self.state));
        }
        if self.counter != 0 {
            out.push(format!(
                "{} completion-counter or arrival-count errors",
                self.counter
            ));
        }
        if self.timeouts != 0 {
            out.push(format!("{} timed waits timed out", self.timeouts));
        }
        if self.waits != want_waits {
            out.push(format!(
                "{} returns from a wait (expected {want_waits})",
                self.waits
            ));
        }
        if self.checks != want_checks {
            out.push(format!(
                "{} value checks (expected {want_checks})",
                self.checks
            ));
        }
    }
}

/// Compares `got` with `want` element by element; a problem names the first few differences.
fn compare<T: PartialEq + std::fmt::Display>(
    what: &str,
    got: &[T],
    want: &[T],
    out: &mut Vec<String>,
) {
    if got.len() != want.len() {
        out.push(format!(
            "{what}: {} words (expected {})",
            got.len(),
            want.len()
        ));
        return;
    }
    let bad: Vec<usize> = (0..got.len()).filter(|&i| got[i] != want[i]).collect();
    if !bad.is_empty() {
        let first: Vec<String> = bad
            .iter()
            .take(4)
            .map(|&i| format!("[{i}] = {} (expected {})", got[i], want[i]))
            .collect();
        out.push(format!(
            "{what}: {} of {} wrong, e.g. {}",
            bad.len(),
            got.len(),
            first.join(", ")
        ));
    }
}

fn result(problems: Vec<String>, ok: impl FnOnce() -> String) -> Result<String> {
    if problems.is_empty() {
        Ok(ok())
    } else {
        Err(problems.join("; ").into())
    }
}

/// The launch: cooperative over `blocks` for global memory (objects shared across blocks need
/// every block resident), plain over `blocks` with `smem` bytes for shared memory.
fn config(
    ctx: &Ctx,
    kernel: &ptx_sync_host::Kernel,
    mem: Mem,
    blocks: u32,
    smem: u32,
) -> Result<LaunchConfig> {
    match mem {
        Mem::Global => ctx
            .gpu
            .cooperative_config(kernel, blocks, THREADS, smem)
            .map_err(Into::into),
        Mem::Shared => Ok(launch_config(blocks, THREADS, smem)),
    }
}

/// The kernels' `tag(r, g) = ((r + 1) << 24) | g` is distinct for every thread and round
/// when `rounds < 255` and `n < 2^24`. (The grid barrier test runs more rounds: its tags
/// repeat every 256 rounds, but a stale value there is two rounds old, still different.)
fn check_tag_range(rounds: u32, n: usize) {
    assert!(
        rounds < 255 && n < 1 << 24,
        "tag range: {rounds} rounds, {n} threads"
    );
}

// ---------------------------------------------------------------------------------------------

/// `Latch<Gpu>` in global memory (fresh latches per round) or `Latch<Cta>` in shared memory
/// (re-armed per round), `LATCH_ROUNDS` rounds.
fn latch(ctx: &Ctx, mem: Mem, shape: Shape) -> Result<String> {
    let blocks = mem.blocks(ctx);
    let lay = Layout::new(shape, mem, blocks);
    check_tag_range(LATCH_ROUNDS, lay.n);
    let rounds = LATCH_ROUNDS;
    let name = match mem {
        Mem::Global => "pattern_latch_gpu",
        Mem::Shared => "pattern_latch_cta",
    };
    let kernel = ctx.kernel(name)?;
    // Each latch expects its arrivers; one nobody uses holds the sentinel.
    let init: Vec<u32> = lay
        .arrivers
        .iter()
        .map(|&a| if a == 0 { LATCH_SENTINEL } else { a })
        .collect();
    let after: Vec<u32> = lay
        .arrivers
        .iter()
        .map(|&a| if a == 0 { LATCH_SENTINEL } else { 0 })
        .collect();
    let want_words = repeat(&after, rounds);
    let arrive = ctx.gpu.upload(&lay.arrive)?;
    let wait = ctx.gpu.upload(&lay.wait)?;
    let peers = ctx.gpu.upload(&lay.peers)?;
    let values = ctx.gpu.zeros::<u32>(2 * lay.n)?;
    let passed = ctx.gpu.zeros::<u32>(lay.arrivers.len())?;
    let stats = ctx.gpu.zeros::<u64>(8)?;
    let stream = ctx.gpu.stream();
    let start = Instant::now();
    let words = match mem {
        Mem::Global => {
            let latches = ctx.gpu.upload(&repeat(&init, rounds))?;
            let cfg = config(ctx, &kernel, mem, blocks, 0)?;
            let mut b = stream.launch_builder(kernel.function());
            b.arg(&latches)
                .arg(&lay.nobj)
                .arg(&rounds)
                .arg(&arrive)
                .arg(&wait)
                .arg(&peers)
                .arg(&values)
                .arg(&passed)
                .arg(&stats);
            unsafe { ctx.launch_cooperative_and_wait(b, cfg, TIMEOUT) }?;
            ctx.gpu.download(&latches)?
        }
        Mem::Shared => {
            let init_d = ctx.gpu.upload(&init)?;
            let out = ctx.gpu.zeros::<u32>(rounds as usize * init.len())?;
            let cfg = config(ctx, &kernel, mem, blocks, 4 * lay.nobj)?;
            let mut b = stream.launch_builder(kernel.function());
            b.arg(&init_d)
                .arg(&out)
                .arg(&lay.nobj)
                .arg(&rounds)
                .arg(&arrive)
                .arg(&wait)
                .arg(&peers)
                .arg(&values)
                .arg(&passed)
                .arg(&stats);
            unsafe { ctx.launch_and_wait(b, cfg, TIMEOUT) }?;
            ctx.gpu.download(&out)?
        }
    };
    let took = start.elapsed();
    let s = Stats::from(&ctx.gpu.download(&stats)?);
    let passed = ctx.gpu.download(&passed)?;
    let want_passed: Vec<u32> = lay.waiters.iter().map(|&w| w * rounds).collect();
    let waits = rounds as u64 * lay.total_waiters();
    let mut problems = Vec::new();
    s.problems(
        waits,
        waits * PEERS as u64,
        "a latch not at 0 after its wait",
        &mut problems,
    );
    compare(
        "returns from waiting, per latch",
        &passed,
        &want_passed,
        &mut problems,
    );
    compare(
        "latch words after each round (0, or the sentinel if unused)",
        &words,
        &want_words,
        &mut problems,
    );
    result(problems, || {
        format!(
            "{}, {}: {} x {THREADS} threads, {}, {rounds} rounds: {waits} returns from a wait (exact per latch), every latch at 0 after its round, the canary untouched, {} peer values checked, 0 stale; {:.2} ms",
            shape.describe(mem),
            match mem {
                Mem::Global => "Latch<Gpu> in global memory",
                Mem::Shared => "Latch<Cta> in shared memory",
            },
            lay.blocks,
            lay.objects_summary(),
            s.checks,
            took.as_secs_f64() * 1e3
        )
    })
}

/// `words` once per round.
fn repeat(words: &[u32], rounds: u32) -> Vec<u32> {
    (0..rounds).flat_map(|_| words.iter().copied()).collect()
}

/// `Barrier<Gpu>` in global memory or `Barrier<Cta>` in shared memory, `BARRIER_ROUNDS`
/// phases on one set of barriers (each object's members arrive every round).
fn barrier(ctx: &Ctx, mem: Mem, shape: Shape) -> Result<String> {
    let blocks = mem.blocks(ctx);
    let lay = Layout::new(shape, mem, blocks);
    assert_eq!(
        lay.arrive, lay.wait,
        "{shape:?}: barrier shapes arrive where they wait"
    );
    check_tag_range(BARRIER_ROUNDS, lay.n);
    let rounds = BARRIER_ROUNDS;
    let name = match mem {
        Mem::Global => "pattern_barrier_gpu",
        Mem::Shared => "pattern_barrier_cta",
    };
    let kernel = ctx.kernel(name)?;
    let objs = lay.arrivers.len();
    let obj = ctx.gpu.upload(&lay.arrive)?;
    let peers = ctx.gpu.upload(&lay.peers)?;
    let values = ctx.gpu.zeros::<u32>(2 * lay.n)?;
    let members = ctx.gpu.upload(&lay.arrivers)?;
    let ctrs = ctx.gpu.zeros::<u32>(objs)?;
    let arrived = ctx.gpu.zeros::<u32>(objs)?;
    let stats = ctx.gpu.zeros::<u64>(8)?;
    let stream = ctx.gpu.stream();
    let start = Instant::now();
    // Each barrier's word (device/src/barrier.rs) afterwards.
    let fresh = |m: u32| init_word(if m == 0 { BAR_SENTINEL } else { m });
    let words: Vec<u64> = match mem {
        Mem::Global => {
            let init: Vec<u64> = lay.arrivers.iter().map(|&m| fresh(m)).collect();
            let bars = ctx.gpu.upload(&init)?;
            let cfg = config(ctx, &kernel, mem, blocks, 0)?;
            let mut b = stream.launch_builder(kernel.function());
            b.arg(&bars)
                .arg(&ctrs)
                .arg(&arrived)
                .arg(&members)
                .arg(&rounds)
                .arg(&obj)
                .arg(&peers)
                .arg(&values)
                .arg(&stats);
            unsafe { ctx.launch_cooperative_and_wait(b, cfg, TIMEOUT) }?;
            ctx.gpu.download(&bars)?
        }
        Mem::Shared => {
            let out = ctx.gpu.zeros::<u64>(objs)?;
            let smem = 8 * lay.nobj;
            let cfg = config(ctx, &kernel, mem, blocks, smem)?;
            let mut b = stream.launch_builder(kernel.function());
            b.arg(&out)
                .arg(&ctrs)
                .arg(&arrived)
                .arg(&members)
                .arg(&lay.nobj)
                .arg(&rounds)
                .arg(&obj)
                .arg(&peers)
                .arg(&values)
                .arg(&stats);
            unsafe { ctx.launch_and_wait(b, cfg, TIMEOUT) }?;
            ctx.gpu.download(&out)?
        }
    };
    let took = start.elapsed();
    let s = Stats::from(&ctx.gpu.download(&stats)?);
    let ctrs = ctx.gpu.download(&ctrs)?;
    let arrived = ctx.gpu.download(&arrived)?;
    let completions = rounds.div_ceil(3);
    // The fresh word, with the phase bit of `rounds` where the barrier was used.
    let want_words: Vec<u64> = lay
        .arrivers
        .iter()
        .map(|&m| fresh(m) | ((m != 0) as u64 & rounds as u64) << 63)
        .collect();
    let want_ctrs: Vec<u32> = lay
        .arrivers
        .iter()
        .map(|&m| if m == 0 { 0 } else { completions })
        .collect();
    let want_arrived: Vec<u32> = lay.arrivers.iter().map(|&m| m * rounds).collect();
    let waits = rounds as u64 * lay.total_waiters();
    let mut problems = Vec::new();
    s.problems(
        waits,
        waits * PEERS as u64,
        "a barrier phase bit or restart value other than the round's after waiting",
        &mut problems,
    );
    let hex = |w: &[u64]| -> Vec<String> { w.iter().map(|w| format!("{w:#x}")).collect() };
    compare(
        "barrier words afterwards",
        &hex(&words),
        &hex(&want_words),
        &mut problems,
    );
    compare(
        "completion steps run, per barrier",
        &ctrs,
        &want_ctrs,
        &mut problems,
    );
    compare(
        "arrivals, per barrier",
        &arrived,
        &want_arrived,
        &mut problems,
    );
    result(problems, || {
        format!(
            "{}, {}: {} x {THREADS} threads, {}, {rounds} phases (arrive_and_wait_with, arrive_and_wait, arrive+wait): {waits} returns from a wait, each seeing its phase, completion count and arrival window; every barrier's word at init_word(m) with the phase bit of {rounds}, {completions} completions, the canary untouched, {} peer values checked, 0 stale; {:.2} ms",
            shape.describe(mem),
            match mem {
                Mem::Global => "Barrier<Gpu> in global memory",
                Mem::Shared => "Barrier<Cta> in shared memory",
            },
            lay.blocks,
            lay.objects_summary(),
            s.checks,
            took.as_secs_f64() * 1e3
        )
    })
}

/// `BlockBarrier` (mbarrier, sm_80+) in shared memory, `BARRIER_ROUNDS` phases.
fn block_barrier(ctx: &Ctx, shape: Shape) -> Result<String> {
    if ctx.gpu.compute_capability() < (8, 0) {
        return skip("BlockBarrier (mbarrier) needs sm_80");
    }
    let mem = Mem::Shared;
    let blocks = mem.blocks(ctx);
    let lay = Layout::new(shape, mem, blocks);
    assert_eq!(
        lay.arrive, lay.wait,
        "{shape:?}: barrier shapes arrive where they wait"
    );
    check_tag_range(BARRIER_ROUNDS, lay.n);
    let rounds = BARRIER_ROUNDS;
    let kernel = ctx.kernel("pattern_block_barrier")?;
    let objs = lay.arrivers.len();
    let obj = ctx.gpu.upload(&lay.arrive)?;
    let peers = ctx.gpu.upload(&lay.peers)?;
    let values = ctx.gpu.zeros::<u32>(2 * lay.n)?;
    let members = ctx.gpu.upload(&lay.arrivers)?;
    let arrived = ctx.gpu.zeros::<u32>(objs)?;
    let stats = ctx.gpu.zeros::<u64>(8)?;
    let cfg = config(ctx, &kernel, mem, blocks, 8 * lay.nobj)?;
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(&arrived)
        .arg(&members)
        .arg(&lay.nobj)
        .arg(&rounds)
        .arg(&obj)
        .arg(&peers)
        .arg(&values)
        .arg(&stats);
    let took = unsafe { ctx.launch_and_wait(b, cfg, TIMEOUT) }?;
    let s = Stats::from(&ctx.gpu.download(&stats)?);
    let arrived = ctx.gpu.download(&arrived)?;
    let want_arrived: Vec<u32> = lay.arrivers.iter().map(|&m| m * rounds).collect();
    let waits = rounds as u64 * lay.total_waiters();
    let mut problems = Vec::new();
    s.problems(waits, waits * PEERS as u64, "(unused)", &mut problems);
    compare(
        "arrivals, per barrier",
        &arrived,
        &want_arrived,
        &mut problems,
    );
    result(problems, || {
        format!(
            "{}, BlockBarrier in shared memory: {blocks} x {THREADS} threads, {}, {rounds} phases (arrive_and_wait, arrive+work+wait, arrive+test_wait): {waits} returns from a wait, each seeing its arrival window; {} peer values checked, 0 stale; {:.2} ms",
            shape.describe(mem),
            lay.objects_summary(),
            s.checks,
            took.as_secs_f64() * 1e3
        )
    })
}

// ---------------------------------------------------------------------------------------------

/// Who waits for whose flag in the atomic-wait tests (every thread stores its own flag).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum WaitShape {
    /// Every thread waits for `lane ^ 1`: the lanes of a warp wait on 32 different words.
    PairLane,
    /// ... for the same lane of the partner warp (`thread ^ 32`).
    PairWarp,
    /// ... for the same thread of the partner block (global) / other half of the block
    /// (shared, `thread ^ 128`).
    PairBlock,
    /// All lanes of a warp wait for one word: lane 0 of the partner warp.
    WarpOneWord,
    /// Odd lanes wait for `lane ^ 1`; even lanes only store.
    OddLanes,
    /// Lane 0 of each warp waits for lane 0 of the next warp (cyclically over the grid /
    /// block).
    Lane0,
    /// A hash-selected 2/3 of the threads each wait for a hash-chosen thread of the grid /
    /// block (duplicates: several waiters on one word).
    Subset,
}

impl WaitShape {
    fn describe(self, mem: Mem) -> &'static str {
        match (self, mem) {
            (WaitShape::PairLane, _) => "each thread waits for lane ^ 1 (32 words per warp)",
            (WaitShape::PairWarp, _) => "each thread waits for thread ^ 32 (the partner warp)",
            (WaitShape::PairBlock, Mem::Global) => {
                "each thread waits for the same thread of block ^ 1"
            }
            (WaitShape::PairBlock, Mem::Shared) => "each thread waits for thread ^ 128",
            (WaitShape::WarpOneWord, _) => {
                "the lanes of a warp all wait for lane 0 of the partner warp"
            }
            (WaitShape::OddLanes, _) => "odd lanes wait for lane ^ 1, even lanes only store",
            (WaitShape::Lane0, _) => "lane 0 of each warp waits for lane 0 of the next warp",
            (WaitShape::Subset, Mem::Global) => {
                "a hash-selected 2/3 of the threads wait for a hash-chosen thread of the grid"
            }
            (WaitShape::Subset, Mem::Shared) => {
                "a hash-selected 2/3 of the threads wait for a hash-chosen thread of the block"
            }
        }
    }

    /// The flag thread `t` of block `b` waits for: a grid index (global) or a block index
    /// (shared).
    fn src(self, mem: Mem, b: u32, t: u32, blocks: u32) -> Option<u32> {
        let g = b * THREADS + t;
        let lane = t % 32;
        let idx = |block: u32, thread: u32| match mem {
            Mem::Global => block * THREADS + thread,
            Mem::Shared => thread,
        };
        let space = match mem {
            Mem::Global => blocks * THREADS,
            Mem::Shared => THREADS,
        };
        match self {
            WaitShape::PairLane => Some(idx(b, t ^ 1)),
            WaitShape::PairWarp => Some(idx(b, t ^ 32)),
            WaitShape::PairBlock => Some(match mem {
                Mem::Global if (b ^ 1) < blocks => idx(b ^ 1, t),
                _ => idx(b, t ^ 128),
            }),
            WaitShape::WarpOneWord => Some(idx(b, (t ^ 32) & !31)),
            WaitShape::OddLanes => (lane % 2 == 1).then(|| idx(b, t ^ 1)),
            WaitShape::Lane0 => (lane == 0).then(|| (idx(b, t) + 32) % space),
            WaitShape::Subset => {
                let h = mix(g ^ 0x00ab_c000);
                (!h.is_multiple_of(3)).then_some((h >> 8) % space)
            }
        }
    }
}

/// `Atomic<u32, Gpu>` flags in global memory (cooperative launch) or `Atomic<u32, Cta>` in
/// shared memory, `WAIT_ROUNDS` rounds of fresh flags.
fn atomic_wait(ctx: &Ctx, mem: Mem, shape: WaitShape) -> Result<String> {
    let blocks = mem.blocks(ctx);
    let n = (blocks * THREADS) as usize;
    let rounds = WAIT_ROUNDS;
    check_tag_range(rounds, n);
    let mut src = vec![NONE; n];
    let mut watched = std::collections::HashSet::new();
    for b in 0..blocks {
        for t in 0..THREADS {
            if let Some(s) = shape.src(mem, b, t, blocks) {
                src[(b * THREADS + t) as usize] = s;
                watched.insert(match mem {
                    Mem::Global => s,
                    Mem::Shared => b * THREADS + s,
                });
            }
        }
    }
    let waiters = src.iter().filter(|&&s| s != NONE).count() as u64;
    let name = match mem {
        Mem::Global => "pattern_wait_gpu",
        Mem::Shared => "pattern_wait_cta",
    };
    let kernel = ctx.kernel(name)?;
    let src_d = ctx.gpu.upload(&src)?;
    let values = ctx.gpu.zeros::<u32>(rounds as usize * n)?;
    let flags = ctx.gpu.zeros::<u32>(rounds as usize * n)?;
    let stats = ctx.gpu.zeros::<u64>(8)?;
    let smem = match mem {
        Mem::Global => 0,
        Mem::Shared => 4 * rounds * THREADS,
    };
    let cfg = config(ctx, &kernel, mem, blocks, smem)?;
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(&flags)
        .arg(&rounds)
        .arg(&src_d)
        .arg(&values)
        .arg(&stats);
    let start = Instant::now();
    match mem {
        Mem::Global => unsafe { b.launch_cooperative(cfg) },
        Mem::Shared => unsafe { b.launch(cfg) },
    }
    .map_err(|e| format!("launch: {e}"))?;
    ctx.gpu.wait(TIMEOUT)?;
    let took = start.elapsed();
    let s = Stats::from(&ctx.gpu.download(&stats)?);
    let flags = ctx.gpu.download(&flags)?;
    let waits = rounds as u64 * waiters;
    let mut problems = Vec::new();
    s.problems(
        waits,
        waits,
        "a wait returning another value than the 1 stored",
        &mut problems,
    );
    compare(
        "flags after the kernel (every thread stores 1 per round)",
        &flags,
        &vec![1u32; flags.len()],
        &mut problems,
    );
    result(problems, || {
        format!(
            "{}, {}: {blocks} x {THREADS} threads, {waiters} waiters on {} distinct words per round, {rounds} rounds (wait, wait_until, wait_until_for): {waits} waits returned 1, 0 timed out, {} partner values checked, 0 stale; {:.2} ms",
            shape.describe(mem),
            match mem {
                Mem::Global => "Atomic<u32, Gpu> in global memory",
                Mem::Shared => "Atomic<u32, Cta> in shared memory",
            },
            watched.len(),
            s.checks,
            took.as_secs_f64() * 1e3
        )
    })
}

// ---------------------------------------------------------------------------------------------

/// `GridBarrier::sync` by every thread of the largest cooperative grid (its documented shape:
/// every thread of the grid, the same number of times), 1-D or with 2-D blocks and grid,
/// alternating between two barriers.
fn grid_barrier(ctx: &Ctx, two_d: bool) -> Result<String> {
    let kernel = ctx.kernel("pattern_grid_sync")?;
    let limit = ctx.gpu.cooperative_limit(&kernel, THREADS, 0)?;
    let mut blocks = limit.max_blocks;
    if two_d {
        blocks &= !1;
    }
    ctx.gpu.check_cooperative(&kernel, blocks, THREADS, 0)?;
    let cfg = if two_d {
        launch_config((blocks / 2, 2), (32, THREADS / 32), 0)
    } else {
        ctx.gpu.cooperative_config(&kernel, blocks, THREADS, 0)?
    };
    let n = (blocks * THREADS) as usize;
    let rounds = GRID_ROUNDS;
    check_tag_range(0, n);
    let bars = ctx.gpu.zeros::<u32>(2)?;
    let values = ctx.gpu.zeros::<u32>(2 * n)?;
    let stats = ctx.gpu.zeros::<u64>(8)?;
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(&bars).arg(&rounds).arg(&values).arg(&stats);
    let took = unsafe { ctx.launch_cooperative_and_wait(b, cfg, TIMEOUT) }?;
    let s = Stats::from(&ctx.gpu.download(&stats)?);
    let words = ctx.gpu.download(&bars)?;
    let per_bar = rounds / 2;
    let want = per_bar.wrapping_mul(0x8000_0000);
    let waits = rounds as u64 * n as u64;
    let mut problems = Vec::new();
    s.problems(waits, 3 * waits, "(unused)", &mut problems);
    compare("grid barrier words", &words, &[want, want], &mut problems);
    result(problems, || {
        format!(
            "every thread syncs, {}: {blocks} blocks ({} per SM) x {THREADS} threads, {rounds} phases alternating a Spin and a NanoSleep GridBarrier ({per_bar} each, words at {want:#x}): {waits} returns, {} cross-block values checked, 0 stale; {:.2} us per phase",
            if two_d {
                format!("grid {} x 2, blocks 32 x {}", blocks / 2, THREADS / 32)
            } else {
                "1-D".to_string()
            },
            limit.blocks_per_sm,
            s.checks,
            took.as_secs_f64() * 1e6 / rounds as f64
        )
    })
}

macro_rules! matrix {
    ($($name:literal => $f:ident($($arg:expr),*);)*) => {
        vec![$(GpuTest {
            name: $name,
            timeout: TIMEOUT,
            run: |ctx| $f(ctx, $($arg),*),
        }),*]
    };
}

pub fn tests() -> Vec<GpuTest> {
    use Mem::{Global, Shared};
    matrix! {
        "pattern_latch_global_lanes_2_objects" => latch(Global, Shape::Lanes2);
        "pattern_latch_global_lanes_32_objects" => latch(Global, Shape::Lanes32);
        "pattern_latch_global_odd_lanes" => latch(Global, Shape::OddLanes);
        "pattern_latch_global_odd_lanes_2_objects" => latch(Global, Shape::OddLanes2);
        "pattern_latch_global_lane_0_only" => latch(Global, Shape::Lane0);
        "pattern_latch_global_data_dependent_subset" => latch(Global, Shape::Subset);
        "pattern_latch_global_object_per_thread" => latch(Global, Shape::PerThread);
        "pattern_latch_global_object_per_64_thread_tile" => latch(Global, Shape::Tile64);
        "pattern_latch_global_object_per_block" => latch(Global, Shape::Block);
        "pattern_latch_global_one_object_per_grid" => latch(Global, Shape::Grid);
        "pattern_latch_global_partner_other_lane" => latch(Global, Shape::PartnerLane);
        "pattern_latch_global_partner_other_warp" => latch(Global, Shape::PartnerWarp);
        "pattern_latch_global_partner_other_block" => latch(Global, Shape::PartnerBlock);
        "pattern_latch_shared_lanes_2_objects" => latch(Shared, Shape::Lanes2);
        "pattern_latch_shared_lanes_32_objects" => latch(Shared, Shape::Lanes32);
        "pattern_latch_shared_odd_lanes" => latch(Shared, Shape::OddLanes);
        "pattern_latch_shared_odd_lanes_2_objects" => latch(Shared, Shape::OddLanes2);
        "pattern_latch_shared_lane_0_only" => latch(Shared, Shape::Lane0);
        "pattern_latch_shared_data_dependent_subset" => latch(Shared, Shape::Subset);
        "pattern_latch_shared_object_per_thread" => latch(Shared, Shape::PerThread);
        "pattern_latch_shared_object_per_64_thread_tile" => latch(Shared, Shape::Tile64);
        "pattern_latch_shared_one_object_per_block" => latch(Shared, Shape::Block);
        "pattern_latch_shared_partner_other_lane" => latch(Shared, Shape::PartnerLane);
        "pattern_latch_shared_partner_other_warp" => latch(Shared, Shape::PartnerWarp);
        "pattern_latch_shared_partner_other_half_block" => latch(Shared, Shape::PartnerBlock);
        "pattern_barrier_global_lanes_2_objects" => barrier(Global, Shape::Lanes2);
        "pattern_barrier_global_lanes_32_objects" => barrier(Global, Shape::Lanes32);
        "pattern_barrier_global_odd_lanes" => barrier(Global, Shape::OddLanes);
        "pattern_barrier_global_odd_lanes_2_objects" => barrier(Global, Shape::OddLanes2);
        "pattern_barrier_global_lane_0_only" => barrier(Global, Shape::Lane0);
        "pattern_barrier_global_data_dependent_subset" => barrier(Global, Shape::Subset);
        "pattern_barrier_global_object_per_thread" => barrier(Global, Shape::PerThread);
        "pattern_barrier_global_object_per_64_thread_tile" => barrier(Global, Shape::Tile64);
        "pattern_barrier_global_object_per_block" => barrier(Global, Shape::Block);
        "pattern_barrier_global_one_object_per_grid" => barrier(Global, Shape::Grid);
        "pattern_barrier_shared_lanes_2_objects" => barrier(Shared, Shape::Lanes2);
        "pattern_barrier_shared_lanes_32_objects" => barrier(Shared, Shape::Lanes32);
        "pattern_barrier_shared_odd_lanes" => barrier(Shared, Shape::OddLanes);
        "pattern_barrier_shared_odd_lanes_2_objects" => barrier(Shared, Shape::OddLanes2);
        "pattern_barrier_shared_lane_0_only" => barrier(Shared, Shape::Lane0);
        "pattern_barrier_shared_data_dependent_subset" => barrier(Shared, Shape::Subset);
        "pattern_barrier_shared_object_per_thread" => barrier(Shared, Shape::PerThread);
        "pattern_barrier_shared_object_per_64_thread_tile" => barrier(Shared, Shape::Tile64);
        "pattern_barrier_shared_one_object_per_block" => barrier(Shared, Shape::Block);
        "pattern_block_barrier_lanes_2_objects" => block_barrier(Shape::Lanes2);
        "pattern_block_barrier_lanes_32_objects" => block_barrier(Shape::Lanes32);
        "pattern_block_barrier_odd_lanes" => block_barrier(Shape::OddLanes);
        "pattern_block_barrier_odd_lanes_2_objects" => block_barrier(Shape::OddLanes2);
        "pattern_block_barrier_lane_0_only" => block_barrier(Shape::Lane0);
        "pattern_block_barrier_data_dependent_subset" => block_barrier(Shape::Subset);
        "pattern_block_barrier_object_per_thread" => block_barrier(Shape::PerThread);
        "pattern_block_barrier_object_per_64_thread_tile" => block_barrier(Shape::Tile64);
        "pattern_block_barrier_one_object_per_block" => block_barrier(Shape::Block);
        "pattern_atomic_wait_global_pair_lane" => atomic_wait(Global, WaitShape::PairLane);
        "pattern_atomic_wait_global_pair_warp" => atomic_wait(Global, WaitShape::PairWarp);
        "pattern_atomic_wait_global_pair_block" => atomic_wait(Global, WaitShape::PairBlock);
        "pattern_atomic_wait_global_warp_one_word" => atomic_wait(Global, WaitShape::WarpOneWord);
        "pattern_atomic_wait_global_odd_lanes" => atomic_wait(Global, WaitShape::OddLanes);
        "pattern_atomic_wait_global_lane_0_only" => atomic_wait(Global, WaitShape::Lane0);
        "pattern_atomic_wait_global_data_dependent_subset" => atomic_wait(Global, WaitShape::Subset);
        "pattern_atomic_wait_shared_pair_lane" => atomic_wait(Shared, WaitShape::PairLane);
        "pattern_atomic_wait_shared_pair_warp" => atomic_wait(Shared, WaitShape::PairWarp);
        "pattern_atomic_wait_shared_pair_half_block" => atomic_wait(Shared, WaitShape::PairBlock);
        "pattern_atomic_wait_shared_warp_one_word" => atomic_wait(Shared, WaitShape::WarpOneWord);
        "pattern_atomic_wait_shared_odd_lanes" => atomic_wait(Shared, WaitShape::OddLanes);
        "pattern_atomic_wait_shared_lane_0_only" => atomic_wait(Shared, WaitShape::Lane0);
        "pattern_atomic_wait_shared_data_dependent_subset" => atomic_wait(Shared, WaitShape::Subset);
        "pattern_grid_barrier_all_threads" => grid_barrier(false);
        "pattern_grid_barrier_all_threads_2d" => grid_barrier(true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every shape's tables on a 3-block grid (odd, so the partner-block fallback runs): every
    /// waiter's peers arrive at its object, arrivers and waiters agree.
    #[test]
    fn layouts_are_consistent() {
        let shapes = [
            Shape::Lanes2,
            Shape::Lanes32,
            Shape::OddLanes,
            Shape::OddLanes2,
            Shape::Lane0,
            Shape::Subset,
            Shape::PerThread,
            Shape::Tile64,
            Shape::Block,
            Shape::Grid,
            Shape::PartnerLane,
            Shape::PartnerWarp,
            Shape::PartnerBlock,
        ];
        for mem in [Mem::Global, Mem::Shared] {
            for shape in shapes {
                if mem == Mem::Shared && shape == Shape::Grid {
                    continue;
                }
                let lay = Layout::new(shape, mem, 3);
                let arrivals: u64 = lay.arrivers.iter().map(|&a| a as u64).sum();
                let callers = lay.arrive.iter().filter(|&&a| a != NONE).count() as u64;
                assert_eq!(arrivals, callers, "{shape:?} {mem:?}");
                // The canary of every space is unused.
                for space in lay.arrivers.chunks(lay.nobj as usize) {
                    assert_eq!(space[lay.nobj as usize - 1], 0, "{shape:?} {mem:?}");
                }
                for g in 0..lay.n {
                    let w = lay.wait[g];
                    if w == NONE {
                        continue;
                    }
                    for k in 0..PEERS {
                        let p = lay.peers[g * PEERS + k] as usize;
                        assert_eq!(lay.arrive[p], w, "{shape:?} {mem:?} thread {g} peer {p}");
                        if mem == Mem::Shared {
                            assert_eq!(p / THREADS as usize, g / THREADS as usize);
                        }
                    }
                }
                // Partner shapes: every waiter's latch is counted down by exactly one thread,
                // which in turn waits on the latch the waiter counts down (an involution).
                if matches!(
                    shape,
                    Shape::PartnerLane | Shape::PartnerWarp | Shape::PartnerBlock
                ) {
                    for g in 0..lay.n {
                        let p = lay.peers[g * PEERS] as usize;
                        assert_eq!(lay.arrive[g], lay.wait[p], "{shape:?} {mem:?} {g}");
                    }
                }
            }
        }
    }

    #[test]
    fn wait_sources_stay_in_their_space() {
        let shapes = [
            WaitShape::PairLane,
            WaitShape::PairWarp,
            WaitShape::PairBlock,
            WaitShape::WarpOneWord,
            WaitShape::OddLanes,
            WaitShape::Lane0,
            WaitShape::Subset,
        ];
        for mem in [Mem::Global, Mem::Shared] {
            for shape in shapes {
                let blocks = 3;
                let mut waiting = 0;
                for b in 0..blocks {
                    for t in 0..THREADS {
                        if let Some(s) = shape.src(mem, b, t, blocks) {
                            waiting += 1;
                            match mem {
                                Mem::Global => assert!(s < blocks * THREADS),
                                Mem::Shared => assert!(s < THREADS),
                            }
                        }
                    }
                }
                assert!(waiting > 0, "{shape:?} {mem:?}");
            }
        }
    }

    #[test]
    fn matrix_names_are_patterns() {
        let all = tests();
        assert!(all.len() > 60);
        for t in &all {
            assert!(t.name.starts_with("pattern_"), "{}", t.name);
        }
        let mut names: Vec<_> = all.iter().map(|t| t.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), all.len());
    }
}
