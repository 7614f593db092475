//! The host grid runner, [`run_grid`] (feature `warp-emulation`): a launch's blocks and
//! threads as `std` threads, each seeing its own position in [`index`](super).

extern crate std;

use crate::backend::index::Position;
use crate::warp::emulation::{first_cause, Lanes, STOPPED};
use std::cell::RefCell;
use std::format;
use std::string::String;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex};
use std::thread_local;
use std::time::{Duration, Instant};
use std::vec::Vec;

/// A launch's extent along x, y and z: CUDA's `dim3`. `3`, `(4, 2)` and `(4, 2, 2)` convert
/// to it (the missing extents are 1), as `<<<3, 64>>>` does in CUDA.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dim3 {
    /// Extent along x.
    pub x: u32,
    /// Extent along y.
    pub y: u32,
    /// Extent along z.
    pub z: u32,
}

impl Dim3 {
    /// `x` by `y` by `z`.
    pub const fn new(x: u32, y: u32, z: u32) -> Dim3 {
        Dim3 { x, y, z }
    }

    /// `x * y * z` in `u64`, saturating at `u64::MAX` (three `u32` extents can exceed it).
    pub const fn count(self) -> u64 {
        (self.x as u64 * self.y as u64).saturating_mul(self.z as u64)
    }
}

impl From<u32> for Dim3 {
    fn from(x: u32) -> Dim3 {
        Dim3::new(x, 1, 1)
    }
}

impl From<(u32, u32)> for Dim3 {
    fn from((x, y): (u32, u32)) -> Dim3 {
        Dim3::new(x, y, 1)
    }
}

impl From<(u32, u32, u32)> for Dim3 {
    fn from((x, y, z): (u32, u32, u32)) -> Dim3 {
        Dim3::new(x, y, z)
    }
}

/// The most threads one block may have in [`run_grid`]: CUDA's limit (and its per-extent
/// limits, 1024 along x and y and 64 along z, hold too). A block's threads run at once, one
/// `std` thread each.
pub const MAX_BLOCK_THREADS: u32 = 1024;

/// The most threads (blocks times threads per block) one [`run_grid`] runs, so that a test
/// stays a test: 64 blocks of 1024, or 256 of 256. Blocks run one after another, so at most
/// [`MAX_BLOCK_THREADS`] run at once.
pub const MAX_GRID_THREADS: u64 = 65_536;

/// How long one [`run_grid`] may run. A block whose threads still wait in a warp collective or
/// in `block::sync` then fails with a message; one still spinning in its own loop past it
/// (and 5 s of grace) stops the process (see [`run_grid`]'s Panics).
pub const TIME_LIMIT: Duration = Duration::from_secs(60);

/// A pointer a kernel body run by [`run_grid`] shares among its threads, as the threads of a
/// GPU launch share a kernel's pointer arguments. Raw pointers are neither `Send` nor `Sync`;
/// this one is both, and reading or writing through it stays `unsafe`, with the kernel's own
/// contract (which threads touch which elements; atomics where several do).
///
/// ```
/// use ptx_sync::index::{self, run_grid, KernelPtr};
///
/// let mut out = vec![0u32; 256];
/// let p = KernelPtr::new(out.as_mut_ptr());
/// // Each thread writes its own element: no two threads touch the same one.
/// run_grid(4, 64, || unsafe { *p.get().add(index::global_rank()) = index::thread_rank() });
/// assert!(out.iter().enumerate().all(|(i, &t)| t == i as u32 % 64));
/// ```
pub struct KernelPtr<T>(*mut T);

impl<T> KernelPtr<T> {
    /// Wraps `ptr` (from `as_mut_ptr`, or `as_ptr().cast_mut()` for memory only read).
    pub const fn new(ptr: *mut T) -> KernelPtr<T> {
        KernelPtr(ptr)
    }

    /// The pointer.
    pub const fn get(&self) -> *mut T {
        self.0
    }
}

impl<T> Clone for KernelPtr<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for KernelPtr<T> {}

impl<T> core::fmt::Debug for KernelPtr<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("KernelPtr").field(&self.0).finish()
    }
}

// SAFETY: the pointer is only an address: every access through it is `unsafe` and answers to
// the kernel's own rules on which threads touch which memory, exactly as on the GPU.
unsafe impl<T> Send for KernelPtr<T> {}
// SAFETY: as for `Send`.
unsafe impl<T> Sync for KernelPtr<T> {}

/// Where the calling `std` thread is in the grid `run_grid` runs, and its block's barrier.
struct Place {
    position: Position,
    barrier: Arc<BlockBarrier>,
}

thread_local! {
    static PLACE: RefCell<Option<Place>> = const { RefCell::new(None) };
}

/// Held by the `run_grid` that runs: they take turns.
static RUNS: Mutex<()> = Mutex::new(());

/// The calling thread's position, if `run_grid` runs it.
pub(crate) fn position() -> Option<Position> {
    PLACE.with(|p| p.borrow().as_ref().map(|p| p.position))
}

/// `block::sync()` on the host: the block's barrier under `run_grid`, nothing outside it (a
/// block of one thread).
pub(crate) fn block_sync() {
    let barrier = PLACE.with(|p| p.borrow().as_ref().map(|p| p.barrier.clone()));
    if let Some(barrier) = barrier {
        barrier.wait();
    }
}

/// One block's `block::sync()`: a barrier of its threads that also notices, instead of hanging,
/// when it waits for threads that have returned, when another thread of the block failed, and
/// when the run's time is up.
struct BlockBarrier {
    threads: u32,
    state: Mutex<BarrierState>,
    moved: Condvar,
    /// The block's lanes' abort flag: set when any thread of the block fails.
    abort: Arc<AtomicBool>,
    deadline: Instant,
}

#[derive(Default)]
struct BarrierState {
    /// Threads waiting in the round under way.
    arrived: u32,
    /// Threads whose body has returned (or panicked).
    exited: u32,
    /// Rounds completed; a waiter leaves when it moves.
    rounds: u64,
}

impl BlockBarrier {
    fn state(&self) -> std::sync::MutexGuard<'_, BarrierState> {
        // A panic never leaves the state half updated; the failure is reported through `abort`.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn fail(&self, what: String) -> ! {
        self.abort.store(true, Ordering::Release);
        self.moved.notify_all();
        panic!("block::sync: {what}");
    }

    /// Waits until every thread of the block has arrived. The mutex orders every thread's
    /// memory accesses before its arrival with every thread's accesses after the round, as
    /// `barrier.sync` does on the GPU.
    fn wait(&self) {
        let mut state = self.state();
        state.arrived += 1;
        if state.arrived == self.threads {
            state.arrived = 0;
            state.rounds += 1;
            self.moved.notify_all();
            return;
        }
        let round = state.rounds;
        loop {
            let (guard, _) = self
                .moved
                .wait_timeout(state, Duration::from_millis(20))
                .unwrap_or_else(|e| e.into_inner());
            state = guard;
            if state.rounds != round {
                return;
            }
            if self.abort.load(Ordering::Acquire) {
                drop(state);
                panic!("block::sync: stopped waiting: {STOPPED}");
            }
            if state.exited > 0 && state.arrived + state.exited >= self.threads {
                let (arrived, exited) = (state.arrived, state.exited);
                drop(state);
                self.fail(format!(
                    "{arrived} threads wait for {exited} threads of the block that have returned \
                     (a hang on the GPU: every thread of the block must call block::sync the \
                     same number of times)"
                ));
            }
            if Instant::now() >= self.deadline {
                let missing = self.threads - state.arrived - state.exited;
                drop(state);
                self.fail(format!(
                    "still waiting for {missing} threads of the block at run_grid's time limit \
                     (deadlock)"
                ));
            }
        }
    }

    /// A thread of the block has returned: barriers waiting only for it now fail.
    fn exit(&self) {
        self.state().exited += 1;
        self.moved.notify_all();
    }
}

/// `(x, y, z)` of `index` in an extent `dim`, x fastest.
fn coords(index: u64, dim: Dim3) -> [u32; 3] {
    let (x, y) = (u64::from(dim.x), u64::from(dim.y));
    [
        (index % x) as u32,
        (index / x % y) as u32,
        (index / (x * y)) as u32,
    ]
}

/// Runs `body` as a CUDA launch `<<<grid, block>>>` on the host: every thread of every block
/// is a `std` thread for which [`index`](super)'s functions give its own position, the
/// threads of each warp (by [`thread_rank`](super::thread_rank), 32 at a time) are the lanes
/// of an emulated warp ([`warp::emulation`](crate::warp::emulation): votes, shuffles, matches
/// and `warp::sync` meet the other lanes), and [`block::sync`](crate::block::sync) is a
/// barrier of the block's threads, which orders their memory accesses as `barrier.sync` does.
/// Returns once every thread has returned.
///
/// The blocks run one after another, in [`block_rank`](super::block_rank) order; the threads
/// of a block all at once. That is one of the schedules a GPU may choose (blocks share nothing
/// but global memory, and nothing says which run together), and it gives each block the whole
/// of a `shared!` variable, which on the host is one `static` for the process. For the same
/// reason one `run_grid` runs at a time in a process: a call made while another runs (say, by
/// a test the harness runs in parallel) waits for it. A kernel that waits for another block (a
/// grid barrier, a flag a later block sets) needs a cooperative launch on the GPU and
/// deadlocks here.
///
/// `body` borrows what it likes (the test's vectors, slices of atomics); it is called once
/// per thread, on that thread. Pointers its threads share go in a [`KernelPtr`].
///
/// ```
/// use ptx_sync::{block, index, warp, Atomic, Gpu, Ordering::Relaxed};
///
/// // A 2-D launch: 2 x 3 blocks of 8 x 4 threads. Every thread counts itself in its block,
/// // then, after block::sync, sees all 32 of its block counted; each warp sums its lanes.
/// let counts: Vec<Atomic<u32, Gpu>> = (0..6).map(|_| Atomic::new(0)).collect();
/// index::run_grid((2, 3), (8, 4), || {
///     let mine = &counts[index::block_rank() as usize];
///     mine.fetch_add(1, Relaxed);
///     block::sync();
///     assert_eq!(mine.load(Relaxed), 32);
///     let mut sum = index::thread_rank();
///     for d in [16, 8, 4, 2, 1] {
///         sum += warp::shfl_xor(u32::MAX, sum, d);
///     }
///     assert_eq!(sum, (0..32).sum());
/// });
/// ```
///
/// # Panics
///
/// - when an extent is 0, a block has more than [`MAX_BLOCK_THREADS`] threads (or more than
///   1024 along x or y, 64 along z), or the launch more than [`MAX_GRID_THREADS`];
/// - when called from a thread of a run (`body` calling `run_grid`), which would wait for
///   itself;
/// - when `body` panics on any thread: with the block, the thread and its message (the other
///   threads of the block stop at their next warp collective or `block::sync`; later blocks
///   do not run);
/// - when a `block::sync` waits for threads that have returned (a hang on the GPU), and when a
///   warp collective is misused (see [`warp::emulation`](crate::warp::emulation));
/// - when threads still wait in a warp collective or `block::sync` after [`TIME_LIMIT`]
///   (a deadlock).
///
/// A thread that never returns and never reaches one of those (a spin on a flag nobody sets)
/// cannot be stopped, and `body` may borrow the caller's data, so the call cannot return
/// while it runs: 5 s after [`TIME_LIMIT`] the runner prints which block is stuck to stderr
/// and aborts the process.
pub fn run_grid(grid: impl Into<Dim3>, block: impl Into<Dim3>, body: impl Fn() + Sync) {
    let (grid, block) = (grid.into(), block.into());
    assert!(
        grid.count() > 0 && block.count() > 0,
        "run_grid: an extent of 0 (grid {grid:?}, block {block:?})"
    );
    assert!(
        block.count() <= u64::from(MAX_BLOCK_THREADS)
            && block.x <= 1024
            && block.y <= 1024
            && block.z <= 64,
        "run_grid: a block of {block:?} has {} threads; CUDA allows at most {MAX_BLOCK_THREADS} \
         (1024 along x and y, 64 along z)",
        block.count()
    );
    let total = grid.count().saturating_mul(block.count());
    assert!(
        total <= MAX_GRID_THREADS,
        "run_grid: {grid:?} blocks of {block:?} are {total} threads; a host run takes at most \
         {MAX_GRID_THREADS} (fewer blocks: a grid-stride loop covers any size)"
    );
    assert!(
        position().is_none(),
        "run_grid: called from a thread of a run_grid (runs take turns: it would wait for itself)"
    );
    // One run at a time: `shared!` statics are the process's, and a block has them to itself.
    // A run that panicked poisons the lock; the next one starts afresh anyway.
    let _turn = RUNS.lock().unwrap_or_else(|e| e.into_inner());
    let deadline = Instant::now() + TIME_LIMIT;
    let running = Arc::new(Mutex::new(String::new()));
    let _watchdog = Watchdog::start(deadline + Duration::from_secs(5), running.clone());
    for b in 0..grid.count() {
        let here = coords(b, grid);
        *running.lock().unwrap_or_else(|e| e.into_inner()) = format!("block {here:?}");
        run_block(grid, block, here, deadline, &body);
    }
}

/// Runs one block's threads at once and waits for them; panics with the first failure.
fn run_block(
    grid: Dim3,
    block: Dim3,
    here: [u32; 3],
    deadline: Instant,
    body: &(impl Fn() + Sync),
) {
    let threads = block.count() as u32;
    let lanes = Lanes::new(threads, deadline);
    let barrier = Arc::new(BlockBarrier {
        threads,
        state: Mutex::new(BarrierState::default()),
        moved: Condvar::new(),
        abort: lanes.abort.clone(),
        deadline,
    });
    let failures: Vec<(u32, String)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|id| {
                let position = Position {
                    thread: coords(u64::from(id), block),
                    block: here,
                    block_dim: [block.x, block.y, block.z],
                    grid_dim: [grid.x, grid.y, grid.z],
                };
                let (lanes, barrier) = (&lanes, barrier.clone());
                std::thread::Builder::new()
                    .name(format!("block {here:?} thread {:?}", position.thread))
                    .stack_size(1 << 20)
                    .spawn_scoped(s, move || {
                        PLACE.with(|p| {
                            *p.borrow_mut() = Some(Place {
                                position,
                                barrier: barrier.clone(),
                            })
                        });
                        let failure = lanes.run(id, body);
                        barrier.exit();
                        PLACE.with(|p| *p.borrow_mut() = None);
                        failure.map(|f| (id, f))
                    })
                    .expect("run_grid: cannot spawn a thread")
            })
            .collect();
        handles
            .into_iter()
            .filter_map(|h| h.join().ok().flatten())
            .collect()
    });
    if let Some((id, message)) = first_cause(&failures) {
        panic!(
            "run_grid: {} of {threads} threads of block {here:?} failed; first: thread {:?}: \
             {message}",
            failures.len(),
            coords(u64::from(*id), block)
        );
    }
}

/// Stops the process when a run outlives its deadline (threads that cannot be stopped, holding
/// the caller's borrows); dropping it (the run ended, or panicked) ends the watch.
struct Watchdog(#[allow(dead_code)] mpsc::Sender<()>);

impl Watchdog {
    fn start(at: Instant, running: Arc<Mutex<String>>) -> Watchdog {
        let (tx, rx) = mpsc::channel::<()>();
        std::thread::Builder::new()
            .name(String::from("run_grid watchdog"))
            .spawn(move || {
                let left = at.saturating_duration_since(Instant::now());
                if let Err(mpsc::RecvTimeoutError::Timeout) = rx.recv_timeout(left) {
                    let what = running.lock().unwrap_or_else(|e| e.into_inner()).clone();
                    std::eprintln!(
                        "ptx_sync::index::run_grid: {what} still has threads running {:?} after \
                         its time limit ({TIME_LIMIT:?}) outside any warp collective or \
                         block::sync (a loop that never ends?); they cannot be stopped and may \
                         hold the caller's data: aborting the process",
                        Duration::from_secs(5)
                    );
                    std::process::abort();
                }
            })
            .expect("run_grid: cannot spawn its watchdog");
        Watchdog(tx)
    }
}
