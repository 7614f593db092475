//! Warps on the CPU, for tests: [`launch`] runs a grid of emulated warps, one `std` thread per
//! lane, and while a lane runs, [`lane`](super::lane), [`active_mask`](super::active_mask),
//! [`sync`](super::sync) and the warp intrinsics (votes, matches, shuffles, `elect_one`)
//! behave as on the GPU for that lane. Everything the crate builds on them (warp-aggregated
//! locks, latches, barriers) then meets real lanes of a real warp in `cargo test`, where a
//! thread outside [`launch`] stays a warp of one.
//!
//! What is emulated, and how (PTX ISA, "Parallel Synchronization and Communication
//! Instructions" and `shfl.sync`):
//! - `activemask.b32`: the lanes the test declared converged with [`converged`] (by default,
//!   every lane of the warp that has not returned). On the GPU this is whichever lanes execute
//!   the instruction together; a test names that set explicitly, so divergent and partial
//!   shapes are reproducible.
//! - Every collective (`bar.warp.sync m`, `vote.sync.*`, `match.*.sync.*`, `shfl.sync.*`,
//!   `elect.sync`) is a rendezvous under a `std` mutex, which also orders the lanes' memory
//!   accesses as `bar.warp.sync` does: a lane waits until the lanes of `m` have executed the
//!   same instruction (same kind and qualifiers) with the same mask (sm_70+ rule: not
//!   necessarily at the same instruction), then computes its result from the values of the
//!   lanes that took part. `vote`, `match`, `shfl` and `elect` wait for the *non-exited* lanes
//!   of `m`, as PTX says: a lane of `m` that has returned is left out (its ballot bit is 0, it
//!   is no match, never elected, and a shuffle reading it gets [`UNDEFINED_WORD`]).
//!   `bar.warp.sync` waits for every lane of `m` and fails when one has returned.
//! - A shuffle's source lane follows PTX's rule with CUDA's width-32 `c` operand (0x1f, 0 for
//!   `up`); a lane whose source is out of range gets its own value, and a source lane outside
//!   `m` (undefined in PTX) gives [`UNDEFINED_WORD`] per 32-bit word. `elect.sync` elects the
//!   lowest lane taking part (the hardware's choice is unspecified but fixed per mask).
//! - A lane whose own bit is not in `m` (undefined in PTX), a mask naming lanes the warp does
//!   not have, `bar.warp.sync` waiting for a lane that has returned (a hang on the GPU), and a
//!   rendezvous that does not complete within the launch's time limit each panic with a
//!   message naming the warp, the lanes and the mask, instead of hanging.
//!
//! ```
//! use ptx_sync::warp::{self, emulation};
//! use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
//! use std::sync::Arc;
//!
//! // 48 threads: a full warp and a warp of 16 lanes; the odd lanes group by `lane / 8`.
//! let groups = Arc::new(AtomicU32::new(0));
//! let g = groups.clone();
//! emulation::launch(48, std::time::Duration::from_secs(10), move |t| {
//!     if t.lane % 2 == 1 {
//!         let odd = 0xaaaa_aaaa & t.warp_mask;
//!         emulation::converged(odd, || {
//!             let peers = warp::match_any(warp::active_mask(), u64::from(t.lane / 8));
//!             assert_eq!(peers, odd & (0xff << (t.lane / 8 * 8)));
//!             if warp::lane() == peers.trailing_zeros() {
//!                 g.fetch_add(1, Relaxed);
//!             }
//!         });
//!     }
//! });
//! assert_eq!(groups.load(Relaxed), 4 + 2); // 4 groups in the full warp, 2 in the partial one
//! ```

extern crate std;

use std::boxed::Box;
use std::cell::RefCell;
use std::collections::HashMap;
use std::format;
use std::string::String;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread_local;
use std::time::{Duration, Instant};
use std::vec::Vec;

use crate::backend::warp::{one_lane, Shfl};

/// One emulated thread, as [`launch`] passes it to the kernel body.
#[derive(Clone, Copy, Debug)]
pub struct Thread {
    /// Index in the launch (`warp * 32 + lane`).
    pub id: u32,
    /// Which warp.
    pub warp: u32,
    /// Lane in the warp (0..32).
    pub lane: u32,
    /// The lanes this warp has (all 32 but in a partial last warp).
    pub warp_mask: u32,
}

/// The warp collectives; a rendezvous only matches lanes at the same kind and mask.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Kind {
    Sync,
    MatchAny,
    MatchAny32,
    MatchAll,
    MatchAll32,
    Ballot,
    Any,
    All,
    Uni,
    Shfl(Shfl),
    Elect,
}

impl Kind {
    fn ptx(self) -> &'static str {
        match self {
            Kind::Sync => "bar.warp.sync",
            Kind::MatchAny => "match.any.sync.b64",
            Kind::MatchAny32 => "match.any.sync.b32",
            Kind::MatchAll => "match.all.sync.b64",
            Kind::MatchAll32 => "match.all.sync.b32",
            Kind::Ballot => "vote.sync.ballot.b32",
            Kind::Any => "vote.sync.any.pred",
            Kind::All => "vote.sync.all.pred",
            Kind::Uni => "vote.sync.uni.pred",
            Kind::Shfl(Shfl::Idx) => "shfl.sync.idx.b32",
            Kind::Shfl(Shfl::Up) => "shfl.sync.up.b32",
            Kind::Shfl(Shfl::Down) => "shfl.sync.down.b32",
            Kind::Shfl(Shfl::Bfly) => "shfl.sync.bfly.b32",
            Kind::Elect => "elect.sync",
        }
    }

    /// Whether the rendezvous waits only for the lanes of its mask that have not exited (PTX:
    /// `vote`, `match`, `shfl`, `elect`), rather than for every lane (`bar.warp.sync`).
    fn skips_exited(self) -> bool {
        self != Kind::Sync
    }
}

/// What a shuffle gives, per 32-bit word, when its source lane is not taking part (outside
/// the mask, or returned): undefined on the GPU, this recognizable word in the emulation.
pub const UNDEFINED_WORD: u32 = 0xdead_beef;

/// The lane a shuffle reads for `lane` with operand `b`, or `None` when it is out of range
/// (the lane then gets its own value): PTX's rule with `c` = 0x1f (idx, down, bfly) or 0
/// (up), as CUDA's `__shfl_*_sync` with width 32 pass it. Only `b[4:0]` counts.
fn source(mode: Shfl, lane: u32, b: u32) -> Option<u32> {
    let b = b & 31;
    match mode {
        Shfl::Idx => Some(b),
        Shfl::Up => lane.checked_sub(b),
        Shfl::Down => Some(lane + b).filter(|&j| j <= 31),
        Shfl::Bfly => Some(lane ^ b),
    }
}

/// One rendezvous point (a kind and a mask) of one warp.
#[derive(Default)]
struct Round {
    /// Lanes waiting in the round under way.
    arrived: u32,
    /// Their values (match.any).
    values: [u64; 32],
    /// Rounds completed; a waiter leaves when it moves.
    completed: u64,
    /// The values of the last completed round. A lane reads it after waking; the next round
    /// of this mask cannot complete (so cannot overwrite it) before that lane arrives again.
    results: [u64; 32],
    /// The lanes whose values `results` holds (the mask, less lanes that had exited).
    took_part: u32,
}

impl Round {
    /// Completes the round if every lane it waits for has arrived: `needed` is its mask, less
    /// the lanes that have exited where the kind skips them.
    fn complete(&mut self, needed: u32) -> Option<Outcome> {
        if self.arrived & needed != needed {
            return None;
        }
        self.results = self.values;
        self.took_part = self.arrived;
        self.completed += 1;
        self.arrived = 0;
        Some(self.outcome())
    }

    fn outcome(&self) -> Outcome {
        Outcome {
            values: self.results,
            took_part: self.took_part,
        }
    }
}

/// A completed rendezvous as one lane sees it: every lane's value, and which lanes took part.
struct Outcome {
    values: [u64; 32],
    took_part: u32,
}

impl Outcome {
    /// The lanes that took part whose value satisfies `f`.
    fn lanes(&self, f: impl Fn(u64) -> bool) -> u32 {
        (0..32)
            .filter(|&l| self.took_part & (1 << l) != 0 && f(self.values[l as usize]))
            .fold(0, |m, l| m | 1 << l)
    }
}

struct Warp {
    index: u32,
    /// Lanes that exist.
    lanes: u32,
    /// Lanes whose body has returned (or panicked).
    exited: AtomicU32,
    rounds: Mutex<HashMap<(Kind, u32), Round>>,
    moved: Condvar,
    /// Set when any lane of the launch panics, so the others stop waiting and fail too.
    abort: Arc<AtomicBool>,
    deadline: Instant,
}

struct Current {
    warp: Arc<Warp>,
    lane: u32,
    active: u32,
}

thread_local! {
    static CURRENT: RefCell<Option<Current>> = const { RefCell::new(None) };
}

/// This lane's warp state, if this thread is an emulated lane.
fn with_current<R>(f: impl FnOnce(Option<&mut Current>) -> R) -> R {
    CURRENT.with(|c| f(c.borrow_mut().as_mut()))
}

pub(crate) fn lane() -> u32 {
    with_current(|c| c.map_or(one_lane::lane(), |c| c.lane))
}

pub(crate) fn active_mask() -> u32 {
    with_current(|c| {
        c.map_or(one_lane::active_mask(), |c| {
            c.active & c.warp.lanes & !c.warp.exited.load(Ordering::Acquire)
        })
    })
}

/// This lane's warp and lane number, if this thread is an emulated lane.
fn me() -> Option<(Arc<Warp>, u32)> {
    with_current(|c| c.map(|c| (c.warp.clone(), c.lane)))
}

pub(crate) fn sync(mask: u32) {
    match me() {
        Some((warp, lane)) => {
            warp.collective(Kind::Sync, lane, mask, 0);
        }
        None => one_lane::sync(mask),
    }
}

pub(crate) fn match_any(mask: u32, value: u64) -> u32 {
    match me() {
        Some((warp, lane)) => warp
            .collective(Kind::MatchAny, lane, mask, value)
            .lanes(|v| v == value),
        None => one_lane::match_any(mask, value),
    }
}

pub(crate) fn match_any_u32(mask: u32, value: u32) -> u32 {
    match me() {
        Some((warp, lane)) => warp
            .collective(Kind::MatchAny32, lane, mask, value.into())
            .lanes(|v| v == u64::from(value)),
        None => one_lane::match_any_u32(mask, value),
    }
}

pub(crate) fn match_all(mask: u32, value: u64) -> Option<u32> {
    match me() {
        Some((warp, lane)) => {
            let o = warp.collective(Kind::MatchAll, lane, mask, value);
            (o.lanes(|v| v == value) == o.took_part).then_some(o.took_part)
        }
        None => one_lane::match_all(mask, value),
    }
}

pub(crate) fn match_all_u32(mask: u32, value: u32) -> Option<u32> {
    match me() {
        Some((warp, lane)) => {
            let o = warp.collective(Kind::MatchAll32, lane, mask, value.into());
            (o.lanes(|v| v == u64::from(value)) == o.took_part).then_some(o.took_part)
        }
        None => one_lane::match_all_u32(mask, value),
    }
}

/// The lanes that voted true in a vote of `kind`, and the lanes that took part.
fn vote(warp: &Warp, kind: Kind, lane: u32, mask: u32, pred: bool) -> (u32, u32) {
    let o = warp.collective(kind, lane, mask, pred.into());
    (o.lanes(|v| v != 0), o.took_part)
}

pub(crate) fn ballot(mask: u32, pred: bool) -> u32 {
    match me() {
        Some((warp, lane)) => vote(&warp, Kind::Ballot, lane, mask, pred).0,
        None => one_lane::ballot(mask, pred),
    }
}

pub(crate) fn any(mask: u32, pred: bool) -> bool {
    match me() {
        Some((warp, lane)) => vote(&warp, Kind::Any, lane, mask, pred).0 != 0,
        None => one_lane::any(mask, pred),
    }
}

pub(crate) fn all(mask: u32, pred: bool) -> bool {
    match me() {
        Some((warp, lane)) => {
            let (yes, took_part) = vote(&warp, Kind::All, lane, mask, pred);
            yes == took_part
        }
        None => one_lane::all(mask, pred),
    }
}

pub(crate) fn uni(mask: u32, pred: bool) -> bool {
    match me() {
        Some((warp, lane)) => {
            let (yes, took_part) = vote(&warp, Kind::Uni, lane, mask, pred);
            yes == 0 || yes == took_part
        }
        None => one_lane::uni(mask, pred),
    }
}

pub(crate) fn shfl(mode: Shfl, mask: u32, word: u32, b: u32) -> u32 {
    match me() {
        Some((warp, lane)) => {
            let o = warp.collective(Kind::Shfl(mode), lane, mask, word.into());
            match source(mode, lane, b) {
                None => word,
                Some(j) if o.took_part & (1 << j) != 0 => o.values[j as usize] as u32,
                Some(_) => UNDEFINED_WORD,
            }
        }
        None => one_lane::shfl(mode, mask, word, b),
    }
}

pub(crate) fn elect_one(mask: u32) -> bool {
    match me() {
        Some((warp, lane)) => {
            let o = warp.collective(Kind::Elect, lane, mask, 0);
            o.took_part.trailing_zeros() == lane
        }
        None => one_lane::elect_one(mask),
    }
}

impl Warp {
    fn fail(&self, lane: u32, what: String) -> ! {
        self.abort.store(true, Ordering::Release);
        self.moved.notify_all();
        panic!("warp emulation: warp {} lane {lane}: {what}", self.index);
    }

    fn rounds(&self) -> MutexGuard<'_, HashMap<(Kind, u32), Round>> {
        // A lane that panicked while holding the lock poisons it; the state is still sound
        // (every update is complete before any panic), and `abort` reports the failure.
        self.rounds.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The lanes a rendezvous of `kind` on `mask` waits for now.
    fn needed(&self, kind: Kind, mask: u32) -> u32 {
        if kind.skips_exited() {
            mask & !self.exited.load(Ordering::Acquire)
        } else {
            mask
        }
    }

    fn collective(&self, kind: Kind, lane: u32, mask: u32, value: u64) -> Outcome {
        let op = kind.ptx();
        if mask & (1 << lane) == 0 {
            self.fail(
                lane,
                format!("{op} {mask:#010x} does not name the calling lane (undefined in PTX)"),
            );
        }
        if mask & !self.lanes != 0 {
            self.fail(
                lane,
                format!(
                    "{op} {mask:#010x} names lanes the warp does not have ({:#010x})",
                    self.lanes
                ),
            );
        }
        let mut rounds = self.rounds();
        let round = rounds.entry((kind, mask)).or_default();
        round.arrived |= 1 << lane;
        round.values[lane as usize] = value;
        if let Some(done) = round.complete(self.needed(kind, mask)) {
            self.moved.notify_all();
            return done;
        }
        let completed = round.completed;
        loop {
            let (guard, _) = self
                .moved
                .wait_timeout(rounds, Duration::from_millis(20))
                .unwrap_or_else(|e| e.into_inner());
            rounds = guard;
            let needed = self.needed(kind, mask);
            let round = rounds.get_mut(&(kind, mask)).expect("a round in progress");
            if round.completed != completed {
                return round.outcome();
            }
            // The lanes still missing may have exited since: then this lane completes it.
            if let Some(done) = round.complete(needed) {
                self.moved.notify_all();
                return done;
            }
            let missing = mask & !round.arrived;
            let gone = missing & self.exited.load(Ordering::Acquire);
            if self.abort.load(Ordering::Acquire) {
                drop(rounds);
                panic!(
                    "warp emulation: warp {} lane {lane}: stopped waiting at {op} {mask:#010x}: {STOPPED}",
                    self.index
                );
            }
            if gone != 0 && !kind.skips_exited() {
                drop(rounds);
                self.fail(
                    lane,
                    format!("{op} {mask:#010x} waits for lanes {gone:#010x}, which have returned (a hang on the GPU)"),
                );
            }
            if Instant::now() >= self.deadline {
                drop(rounds);
                self.fail(
                    lane,
                    format!("{op} {mask:#010x} still waits for lanes {missing:#010x} at the launch's time limit (deadlock)"),
                );
            }
        }
    }
}

/// Runs `f` as the lanes in `mask` converged: while it runs, [`active_mask`](super::active_mask)
/// is `mask` (less the lanes that have returned). The calling lane must be in `mask`, and every
/// lane in `mask` must call `converged` with the same mask around the same operation, as the
/// lanes of a divergent branch on the GPU execute it together. Outside [`launch`], it just runs
/// `f`.
///
/// # Panics
///
/// Inside [`launch`], when `mask` does not name the calling lane: a panic with the warp, the lane
/// and the mask (the launch then fails, as for any lane that panics). Outside it, never.
pub fn converged<R>(mask: u32, f: impl FnOnce() -> R) -> R {
    let before = with_current(|c| {
        c.map(|c| {
            if mask & (1 << c.lane) == 0 {
                c.warp.fail(
                    c.lane,
                    format!("converged({mask:#010x}) does not name the calling lane"),
                );
            }
            core::mem::replace(&mut c.active, mask)
        })
    });
    struct Restore(Option<u32>);
    impl Drop for Restore {
        fn drop(&mut self) {
            if let Some(active) = self.0 {
                with_current(|c| {
                    if let Some(c) = c {
                        c.active = active;
                    }
                });
            }
        }
    }
    let _restore = Restore(before);
    f()
}

/// Runs `body` on `threads` emulated threads (warps of 32 lanes, the last one partial), one
/// `std` thread each, all at once, and returns when every one has returned.
///
/// # Panics
/// With a message naming the warp and lane: when a lane's body panics (the other lanes stop
/// at their next warp collective), when a warp collective is misused, and when the launch has
/// not finished after `limit` (a deadlock: the lanes still running are named; they are left
/// running, detached, since a spinning thread cannot be stopped).
pub fn launch(threads: u32, limit: Duration, body: impl Fn(Thread) + Send + Sync + 'static) {
    assert!(threads > 0, "warp emulation: launch of 0 threads");
    let body = Arc::new(body);
    let deadline = Instant::now() + limit;
    let lanes = Arc::new(Lanes::new(threads, deadline));
    let abort = lanes.abort.clone();
    let (done_tx, done_rx) = std::sync::mpsc::channel::<(u32, Option<String>)>();
    for id in 0..threads {
        let (lanes, body, done) = (lanes.clone(), body.clone(), done_tx.clone());
        let lane = id % 32;
        std::thread::Builder::new()
            .name(format!("warp {} lane {lane}", id / 32))
            .stack_size(256 * 1024)
            .spawn(move || {
                let t = lanes.thread(id);
                let failure = lanes.run(id, || body(t));
                let _ = done.send((id, failure));
            })
            .expect("warp emulation: cannot spawn a lane thread");
    }
    drop(done_tx);
    let mut running: Vec<bool> = (0..threads).map(|_| true).collect();
    let mut failures = Vec::new();
    for _ in 0..threads {
        let left = deadline.saturating_duration_since(Instant::now()) + Duration::from_millis(500);
        match done_rx.recv_timeout(left) {
            Ok((id, failure)) => {
                running[id as usize] = false;
                failures.extend(failure.map(|f| (id, f)));
            }
            Err(_) => {
                abort.store(true, Ordering::Release);
                let stuck: Vec<String> = (0..threads)
                    .filter(|&id| running[id as usize])
                    .map(|id| format!("{}.{}", id / 32, id % 32))
                    .collect();
                let first = failures
                    .first()
                    .map(|(id, m)| format!("; first failure: thread {id}: {m}"))
                    .unwrap_or_default();
                panic!(
                    "warp emulation: {} of {threads} lanes still running after {limit:?} (deadlock?); warp.lane: {}{first}",
                    stuck.len(),
                    stuck.join(" ")
                );
            }
        }
    }
    // The first failure is the cause; the others are lanes that stopped because of it.
    if let Some((id, message)) = first_cause(&failures) {
        panic!(
            "warp emulation: {} of {threads} lanes failed; first: thread {id} (warp {} lane {}): {message}",
            failures.len(),
            id / 32,
            id % 32
        );
    }
}

/// What a lane that stops because another failed says: [`first_cause`] passes over it.
pub(crate) const STOPPED: &str = "another lane failed";

/// The failure that caused the others: the first that is not a lane stopping because another
/// failed (those say [`STOPPED`]), else the first.
pub(crate) fn first_cause(failures: &[(u32, String)]) -> Option<&(u32, String)> {
    failures
        .iter()
        .find(|(_, m)| !m.contains(STOPPED))
        .or(failures.first())
}

/// The warps of one group of `threads` emulated threads, `id` 0.. in warps of 32 (the last
/// one partial): a [`launch`], or one block of the grid runner (`crate::index::run_grid`),
/// which runs each thread on a `std` thread of its own through [`Lanes::run`].
pub(crate) struct Lanes {
    warps: Vec<Arc<Warp>>,
    /// Set when a lane fails: lanes waiting in a collective stop (and so do the grid runner's
    /// block barriers, which share it).
    pub(crate) abort: Arc<AtomicBool>,
}

impl Lanes {
    /// `threads` lanes whose collectives give up at `deadline`.
    pub(crate) fn new(threads: u32, deadline: Instant) -> Lanes {
        let abort = Arc::new(AtomicBool::new(false));
        let warps = (0..threads.div_ceil(32))
            .map(|w| {
                let n = (threads - w * 32).min(32);
                Arc::new(Warp {
                    index: w,
                    lanes: if n == 32 { u32::MAX } else { (1 << n) - 1 },
                    exited: AtomicU32::new(0),
                    rounds: Mutex::new(HashMap::new()),
                    moved: Condvar::new(),
                    abort: abort.clone(),
                    deadline,
                })
            })
            .collect();
        Lanes { warps, abort }
    }

    /// Thread `id` as [`launch`] passes it to the body.
    pub(crate) fn thread(&self, id: u32) -> Thread {
        let warp = &self.warps[(id / 32) as usize];
        Thread {
            id,
            warp: warp.index,
            lane: id % 32,
            warp_mask: warp.lanes,
        }
    }

    /// Runs `body` on the calling `std` thread as thread `id`: lane `id % 32` of warp
    /// `id / 32`, so the warp intrinsics meet the other lanes of its warp. Afterwards (returned
    /// or panicked) the lane has exited; a panic sets `abort` and its message is returned.
    pub(crate) fn run(&self, id: u32, body: impl FnOnce()) -> Option<String> {
        let (warp, lane) = (self.warps[(id / 32) as usize].clone(), id % 32);
        CURRENT.with(|c| {
            *c.borrow_mut() = Some(Current {
                warp: warp.clone(),
                lane,
                active: warp.lanes,
            })
        });
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(body));
        warp.exited.fetch_or(1 << lane, Ordering::AcqRel);
        warp.moved.notify_all();
        CURRENT.with(|c| *c.borrow_mut() = None);
        result.err().map(|e| {
            warp.abort.store(true, Ordering::Release);
            panic_message(e)
        })
    }
}

pub(crate) fn panic_message(e: Box<dyn std::any::Any + Send>) -> String {
    match e.downcast::<String>() {
        Ok(s) => *s,
        Err(e) => e
            .downcast::<&'static str>()
            .map(|s| String::from(*s))
            .unwrap_or_else(|_| String::from("(non-string panic)")),
    }
}
