//! `BlockBarrier`: the hardware barrier object of sm_80+ (`mbarrier`) in shared memory, which
//! `cuda::barrier<thread_scope_block>` uses for the same job. GPU only.
//!
//! An `mbarrier` counts arrivals in hardware and tracks its phase itself: `arrive` returns
//! the phase state as a token and `test_wait`/`try_wait` reports whether that phase completed.
//! The PTX ISA specifies `mbarrier.arrive` with `.release` and `.cta` scope and
//! `mbarrier.test_wait`/`try_wait` with `.acquire` by default ("Parallel Synchronization and
//! Communication Instructions: mbarrier"), so writes before an arrival are visible after a
//! successful wait on that phase: no extra fence.
//!
//! For a completion step, or a barrier outside shared memory, use [`Barrier<Cta>`](crate::barrier::Barrier).
//!
//! On sm_90 it also counts the bytes of asynchronous bulk copies (`ptx_sync::bulk`):
//! `expect_tx`, `arrive_expect_tx`, `complete_tx` (in `block_barrier/tx.rs`).
//!
//! ```ignore
//! use ptx_sync::{block, shared, BlockBarrier};
//!
//! /// The first warp fills a table, every thread reads it after the barrier's phase.
//! ///
//! /// # Safety
//! /// Blocks of at least 32 threads (x only); `out` holds one `u32` per thread of the grid.
//! #[unsafe(no_mangle)]
//! pub unsafe extern "ptx-kernel" fn doc_block_barrier_table(out: *mut u32) {
//!     shared! {
//!         static BAR: BlockBarrier;
//!         static TABLE: [u32; 32];
//!     }
//!     unsafe {
//!         let bar = BAR.get();
//!         let t = block::thread_x();
//!         if t == 0 {
//!             bar.init(block::dim_x()); // every thread of the block arrives
//!         }
//!         block::sync(); // the init happens before any arrival
//!         if t < 32 {
//!             TABLE.shared().at(t as usize).write(t * t);
//!         }
//!         // mbarrier.arrive (.release.cta), then mbarrier.try_wait (.acquire.cta): the
//!         // table is written when the wait returns.
//!         bar.arrive_and_wait();
//!         let i = block::index_x() * block::dim_x() + t;
//!         out.add(i as usize).write(TABLE.shared().at((t % 32) as usize).read());
//!     }
//! }
//! ```
//!
//! ## PTX and CUDA C++
//!
//! | Item | PTX it emits | CUDA C++ / libcu++ |
//! |------|--------------|--------------------|
//! | `BlockBarrier`, `BlockToken` (sm_80, GPU only, shared memory); `try_wait_parity`, `wait_parity`, `wait_for`, `wait_until`, `wait_parity_for`, `wait_parity_until` | `mbarrier.init/arrive/arrive_drop/test_wait(.parity).shared.b64`; `mbarrier.try_wait(.parity)` on sm_90, timed: with the time left as its suspend-time hint, and `%globaltimer` | `cuda::barrier<cuda::thread_scope_block>` in shared memory |
//! | `BlockBarrier::arrive_n(n)` (GPU only): one arrival for `n` threads, e.g. a warp's | sm_90: `mbarrier.arrive.release.cta.shared::cta.b64 state, [addr], n`; sm_80: `mbarrier.arrive.noComplete.shared.b64` of `n - 1`, then `mbarrier.arrive.shared.b64` | `barrier<thread_scope_block>::arrive(update)`, `cuda::ptx::mbarrier_arrive(addr, count)` |
//! | `BlockBarrier::{expect_tx, arrive_expect_tx, complete_tx}` (sm_90, GPU only) | `mbarrier.expect_tx.relaxed.cta.shared::cta.b64`, `mbarrier.arrive.expect_tx.release.cta.shared::cta.b64`, `mbarrier.complete_tx.relaxed.cta.shared::cta.b64` | `cuda::device::barrier_expect_tx`, `barrier_arrive_tx(bar, 1, bytes)` |

use crate::backend::mbarrier;
use core::cell::UnsafeCell;

/// The most arrivals an `mbarrier` expects (PTX ISA, "Contents of the mbarrier object": the
/// expected and pending counts lie in `0 ..= 2^20 - 1`).
const MAX_COUNT: u32 = (1 << 20) - 1;

// Transaction counts (sm_90): `expect_tx`, `arrive_expect_tx`, `complete_tx`.
#[cfg(target_feature = "sm_90")]
mod tx;

// Parity and timed waits: `try_wait_parity`, `wait_parity`, `wait_for`, `wait_until`,
// `wait_parity_for`, `wait_parity_until` (the `mbarrier.try_wait` suspend-time hint on sm_90).
mod timed;

/// A block barrier on `mbarrier` (sm_80+). It must live in shared memory
/// ([`block::dynamic_shared_memory`](crate::block::dynamic_shared_memory)).
///
/// ```ignore
/// use ptx_sync::{block, BlockBarrier};
///
/// /// The barrier at the start of the launch's dynamic shared memory (8 bytes at least).
/// #[unsafe(no_mangle)]
/// pub unsafe extern "ptx-kernel" fn doc_block_barrier_dynamic() {
///     let bar = unsafe { BlockBarrier::from_ptr(block::dynamic_shared_memory().cast()) };
///     if block::thread_rank() == 0 {
///         bar.init(block::dim_x());
///     }
///     block::sync();
///     bar.arrive_and_wait();
/// }
/// ```
#[repr(C, align(8))]
pub struct BlockBarrier {
    state: UnsafeCell<u64>,
}

/// The phase an arrival belongs to (the `mbarrier` state `arrive` returned).
#[must_use = "wait for the phase with BlockBarrier::wait"]
#[derive(Debug)]
pub struct BlockToken(u64);

// SAFETY: as core's atomics are `Sync`: every access to `state` through `&self` is an
// `mbarrier` instruction, which is atomic.
unsafe impl Sync for BlockBarrier {}

/// The address only: the `mbarrier` object is opaque, and the PTX ISA allows no access to it
/// but the `mbarrier` instructions.
impl core::fmt::Debug for BlockBarrier {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("BlockBarrier")
            .field("ptr", &self.state.get())
            .finish()
    }
}

// The auto traits, checked by the nvptx build (device/tests/auto_traits.rs pins the types the
// host builds).
const _: fn() = || {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<BlockBarrier>();
    send_sync::<BlockToken>();
};

impl BlockBarrier {
    /// Views the barrier at `ptr`.
    ///
    /// Debug builds trap with a message when `ptr` is not 8-byte aligned or not in this
    /// block's shared memory (`isspacep.shared::cta`).
    ///
    /// # Safety
    /// `ptr` is 8-byte aligned, in this block's shared memory, lives for `'a`, and is used
    /// only through `BlockBarrier` meanwhile.
    ///
    /// # Panics
    ///
    /// In a debug build, traps with a message when `ptr` is not 8-byte aligned or not in this
    /// block's shared memory (`isspacep.shared::cta`); release builds do not check.
    #[inline(always)]
    pub unsafe fn from_ptr<'a>(ptr: *mut u64) -> &'a Self {
        debug_check!(
            ptr.is_aligned(),
            "BlockBarrier::from_ptr: the mbarrier must be 8-byte aligned"
        );
        // SAFETY: `repr(C)` over one `u64`; the caller's contract.
        let bar = unsafe { &*ptr.cast::<Self>() };
        bar.debug_check_shared();
        bar
    }

    /// In debug builds, traps unless the barrier is in this block's shared memory. The
    /// `mbarrier` instructions take a `.shared::cta` address: `cvta.to.shared` of a local
    /// (a kernel's variable) or global address yields some other shared location, which the
    /// barrier would then silently corrupt.
    #[inline(always)]
    fn debug_check_shared(&self) {
        debug_check!(
            crate::backend::address_space::in_space(
                self.state.get() as *const u8,
                crate::backend::address_space::SpaceKind::SharedCta,
            ),
            "BlockBarrier: not in this block's shared memory (mbarrier needs a .shared::cta \
             address; a local or global one names another location)"
        );
    }

    /// Initializes the barrier for `count` threads (1..=2^20-1). One thread calls it, then
    /// the block synchronizes (`block::sync()`) before anyone arrives.
    ///
    /// Debug builds trap with a message on a count of 0 or above 2^20 - 1 (the PTX ISA's
    /// range for `mbarrier.init`; a phase of 0 arrivals could never complete), and when the
    /// barrier is not in this block's shared memory.
    ///
    /// PTX: `mbarrier.init.shared.b64`.
    ///
    /// ```ignore
    /// use ptx_sync::{block, shared, BlockBarrier};
    ///
    /// /// A barrier for the first warp only: the count is the threads that arrive, not the
    /// /// block's size.
    /// ///
    /// /// # Safety
    /// /// Blocks of at least 32 threads (x only); `out` holds 32 `u32`s per block.
    /// #[unsafe(no_mangle)]
    /// pub unsafe extern "ptx-kernel" fn doc_block_barrier_init(out: *mut u32) {
    ///     shared! {
    ///         static BAR: BlockBarrier;
    ///         static LANES: [u32; 32];
    ///     }
    ///     unsafe {
    ///         let bar = BAR.get();
    ///         let t = block::thread_x();
    ///         if t == 0 {
    ///             bar.init(32); // mbarrier.init.shared.b64
    ///         }
    ///         // No thread arrives before the init: barrier.sync 0 orders it before them.
    ///         block::sync();
    ///         if t < 32 {
    ///             LANES.shared().at(t as usize).write(t);
    ///             bar.arrive_and_wait();
    ///             let base = block::index_x() as usize * 32;
    ///             out.add(base + t as usize).write(LANES.shared().at(31 - t as usize).read());
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build, traps with a message when `count` is 0 or above `2^20 - 1`, or when the
    /// barrier is not in this block's shared memory; release builds do not check.
    #[inline(always)]
    pub fn init(&self, count: u32) {
        debug_check!(
            count > 0,
            "BlockBarrier::init: a barrier needs at least one thread"
        );
        debug_check!(
            count <= MAX_COUNT,
            "BlockBarrier::init: an mbarrier expects at most 2^20 - 1 arrivals"
        );
        self.debug_check_shared();
        // SAFETY: `self` is in shared memory (constructor contract).
        unsafe { mbarrier::init(self.state.get(), count) }
    }

    /// Arrives at the current phase; returns its token. Debug builds trap with a message when
    /// the barrier is not in this block's shared memory.
    ///
    /// More arrivals than `init`'s count in one phase are not detected: the state an arrival
    /// returns is opaque in the PTX ISA (`mbarrier.pending_count` reads it only after a
    /// `.noComplete` arrival), and an extra arrival counts towards the next phase.
    ///
    /// PTX: `mbarrier.arrive.shared.b64` (`.release.cta` by default).
    ///
    /// ```ignore
    /// use ptx_sync::{block, shared, BlockBarrier};
    ///
    /// /// Producers arrive and go on; only the consumers wait for the phase.
    /// ///
    /// /// # Safety
    /// /// Blocks of 64 threads (x only); `out` holds 32 `u32`s per block.
    /// #[unsafe(no_mangle)]
    /// pub unsafe extern "ptx-kernel" fn doc_block_barrier_arrive(out: *mut u32) {
    ///     shared! {
    ///         static BAR: BlockBarrier;
    ///         static ITEMS: [u32; 32];
    ///     }
    ///     unsafe {
    ///         let bar = BAR.get();
    ///         let t = block::thread_x();
    ///         if t == 0 {
    ///             bar.init(64);
    ///         }
    ///         block::sync();
    ///         if t < 32 {
    ///             // Warp 0 produces: mbarrier.arrive releases the store, and nobody waits.
    ///             ITEMS.shared().at(t as usize).write(t + 1);
    ///             let _ = bar.arrive();
    ///         } else {
    ///             // Warp 1 consumes: its wait returns once all 64 threads have arrived.
    ///             bar.wait(bar.arrive());
    ///             let item = ITEMS.shared().at(t as usize - 32).read();
    ///             out.add(block::index_x() as usize * 32 + t as usize - 32).write(item);
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build, traps with a message when the barrier is not in this block's shared
    /// memory; release builds do not check.
    #[inline(always)]
    pub fn arrive(&self) -> BlockToken {
        self.debug_check_shared();
        // SAFETY: as in `init`.
        BlockToken(unsafe { mbarrier::arrive(self.state.get()) })
    }

    /// Arrives `n` times at once, for `n` threads: one lane can arrive for its whole warp
    /// (libcu++: `barrier<thread_scope_block>::arrive(update)`, `cuda::ptx::mbarrier_arrive(addr,
    /// count)`). Returns the phase's token, as [`arrive`](Self::arrive) does. The threads it
    /// arrives for must not arrive themselves too: the phase would count them twice and
    /// complete early (the excess counting towards the next one), which is not detected.
    ///
    /// PTX: on sm_90 one `mbarrier.arrive.release.cta.shared::cta.b64 state, [addr], n` (the
    /// count form: PTX 7.8, sm_90). On sm_80, which has no count on a completing arrival,
    /// libcu++'s two: `mbarrier.arrive.noComplete.shared.b64` for `n - 1` (left out when `n`
    /// is 1; it cannot complete the phase, since this thread's last arrival is still pending),
    /// then `mbarrier.arrive.shared.b64` for the last one (`.release.cta` by default), which
    /// may complete it.
    ///
    /// To arrive for a warp, its lanes' writes must come before the one arrival: a
    /// [`warp::sync`](crate::warp::sync) of the warp's lanes first (as libcu++'s sm_70
    /// `arrive` aggregates a warp), so the arrival's release covers them.
    ///
    /// ```ignore
    /// use ptx_sync::{block, shared, warp, BlockBarrier};
    ///
    /// /// Each warp arrives once, by its lowest lane, for all of its lanes: a block of 100
    /// /// threads (three warps of 32 and one of 4) makes 4 arrivals a phase instead of 100.
    /// ///
    /// /// # Safety
    /// /// 1-D blocks; `out` holds a `u32` per thread of the grid.
    /// #[unsafe(no_mangle)]
    /// pub unsafe extern "ptx-kernel" fn doc_block_barrier_arrive_n(out: *mut u32) {
    ///     shared! {
    ///         static BAR: BlockBarrier;
    ///         static TILE: [u32; 1024];
    ///     }
    ///     unsafe {
    ///         let bar = BAR.get();
    ///         let (t, n) = (block::thread_x(), block::dim_x());
    ///         if t == 0 {
    ///             bar.init(n);
    ///         }
    ///         block::sync();
    ///         TILE.shared().at(t as usize).write(t * 3);
    ///         let lanes = warp::active_mask(); // this warp's lanes, all here
    ///         warp::sync(lanes); // their writes before the leader's arrival
    ///         if warp::leader(lanes) {
    ///             let _ = bar.arrive_n(lanes.count_ones());
    ///         }
    ///         bar.wait_parity(false); // the first phase: every thread's write is visible
    ///         let other = (t + 37) % n;
    ///         let i = block::index_x() * n + t;
    ///         out.add(i as usize).write(TILE.shared().at(other as usize).read());
    ///     }
    /// }
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build, traps with a message when `n` is 0 (an arrival of nobody) or above
    /// `2^20 - 1` (the PTX ISA's range for an `mbarrier` count), or when the barrier is not in
    /// this block's shared memory; release builds do not check.
    #[inline(always)]
    pub fn arrive_n(&self, n: u32) -> BlockToken {
        debug_check!(
            n > 0,
            "BlockBarrier::arrive_n: an arrival counts at least one thread"
        );
        debug_check!(
            n <= MAX_COUNT,
            "BlockBarrier::arrive_n: an mbarrier counts at most 2^20 - 1 arrivals"
        );
        self.debug_check_shared();
        #[cfg(target_feature = "sm_90")]
        {
            // SAFETY: as in `init`.
            BlockToken(unsafe { mbarrier::arrive_n(self.state.get(), n) })
        }
        #[cfg(not(target_feature = "sm_90"))]
        {
            if n > 1 {
                // SAFETY: as in `init`. The phase still waits for this thread's last arrival,
                // so this one cannot complete it (`.noComplete` requires that).
                unsafe { mbarrier::arrive_no_complete(self.state.get(), n - 1) }
            }
            self.arrive()
        }
    }

    /// Arrives and leaves: later phases expect one thread fewer.
    ///
    /// PTX: `mbarrier.arrive_drop.shared.b64`.
    ///
    /// # Panics
    ///
    /// In a debug build, traps with a message when the barrier is not in this block's shared
    /// memory; release builds do not check.
    #[inline(always)]
    pub fn arrive_and_drop(&self) {
        self.debug_check_shared();
        // SAFETY: as in `init`.
        unsafe { mbarrier::arrive_drop(self.state.get()) }
    }

    /// Whether the phase of `token` has completed (acquire on success); never waits.
    ///
    /// PTX: `mbarrier.test_wait.shared.b64`.
    #[inline(always)]
    pub fn test_wait(&self, token: &BlockToken) -> bool {
        // SAFETY: as in `init`.
        unsafe { mbarrier::test_wait(self.state.get(), token.0) }
    }

    /// Waits until the phase of `token` has completed. On sm_90 this is `mbarrier.try_wait`,
    /// which suspends the thread in hardware until the phase completes or a time limit passes;
    /// on sm_80 a `test_wait` poll.
    ///
    /// PTX: `mbarrier.try_wait.shared.b64` in a loop (sm_90), `mbarrier.test_wait.shared.b64`
    /// in a loop (sm_80); `.acquire.cta` by default.
    ///
    /// ```ignore
    /// use ptx_sync::{block, shared, BlockBarrier};
    ///
    /// /// Split phase: arrive as soon as the shared write is done, compute what needs nobody
    /// /// else's data, then wait before reading the neighbour's value.
    /// ///
    /// /// # Safety
    /// /// Blocks of at most 1024 threads (x only); `input` and `out` hold one `u32` per thread
    /// /// of the grid.
    /// #[unsafe(no_mangle)]
    /// pub unsafe extern "ptx-kernel" fn doc_block_barrier_wait(input: *const u32, out: *mut u32) {
    ///     shared! {
    ///         static BAR: BlockBarrier;
    ///         static VALUES: [u32; 1024];
    ///     }
    ///     unsafe {
    ///         let bar = BAR.get();
    ///         let (t, n) = (block::thread_x(), block::dim_x());
    ///         let i = (block::index_x() * n + t) as usize;
    ///         if t == 0 {
    ///             bar.init(n);
    ///         }
    ///         block::sync();
    ///         let mine = input.add(i).read();
    ///         VALUES.shared().at(t as usize).write(mine);
    ///         let token = bar.arrive(); // mbarrier.arrive: releases the write
    ///         let own = mine.wrapping_mul(mine); // independent work overlaps the others
    ///         bar.wait(token); // mbarrier.try_wait: every write of the phase is visible
    ///         let next = VALUES.shared().at(((t + 1) % n) as usize).read();
    ///         out.add(i).write(own.wrapping_add(next));
    ///     }
    /// }
    /// ```
    #[inline(always)]
    pub fn wait(&self, token: BlockToken) {
        #[cfg(target_feature = "sm_90")]
        // SAFETY: as in `init`.
        unsafe {
            mbarrier::wait(self.state.get(), token.0)
        }
        #[cfg(not(target_feature = "sm_90"))]
        while !self.test_wait(&token) {}
    }

    /// Arrives and waits for the others.
    ///
    /// PTX: `mbarrier.arrive.shared.b64`, then `mbarrier.try_wait.shared.b64` in a loop
    /// (sm_90; `mbarrier.test_wait.shared.b64` on sm_80).
    ///
    /// ```ignore
    /// use ptx_sync::{block, shared, BlockBarrier};
    ///
    /// /// `steps` rounds of smoothing in shared memory; the barrier is reused, one phase per
    /// /// half round (the reads of a round finish before its writes start).
    /// ///
    /// /// # Safety
    /// /// Blocks of at most 256 threads (x only); `data` holds one `u32` per thread of the grid.
    /// #[unsafe(no_mangle)]
    /// pub unsafe extern "ptx-kernel" fn doc_block_barrier_arrive_and_wait(data: *mut u32, steps: u32) {
    ///     shared! {
    ///         static BAR: BlockBarrier;
    ///         static ROW: [u32; 256];
    ///     }
    ///     unsafe {
    ///         let bar = BAR.get();
    ///         let (t, n) = (block::thread_x(), block::dim_x());
    ///         let mine = data.add((block::index_x() * n + t) as usize);
    ///         if t == 0 {
    ///             bar.init(n);
    ///         }
    ///         block::sync();
    ///         ROW.shared().at(t as usize).write(mine.read());
    ///         for _ in 0..steps {
    ///             bar.arrive_and_wait(); // the last round's writes are visible
    ///             let left = ROW.shared().at(((t + n - 1) % n) as usize).read();
    ///             let right = ROW.shared().at(((t + 1) % n) as usize).read();
    ///             bar.arrive_and_wait(); // every read of this round is done
    ///             ROW.shared().at(t as usize).write((left + right) / 2);
    ///         }
    ///         mine.write(ROW.shared().at(t as usize).read()); // this thread's own slot
    ///     }
    /// }
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build, traps with a message when the barrier is not in this block's shared memory
    /// (the check of [`arrive`](Self::arrive)); release builds do not check.
    #[inline(always)]
    pub fn arrive_and_wait(&self) {
        let t = self.arrive();
        self.wait(t);
    }
}
