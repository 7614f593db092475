//! `GridBarrier`: every thread of a cooperative launch waits for every other
//! (cooperative groups' `grid.sync()`). GPU only.
//!
//! One `u32` in global memory (zeroed). Per phase: the block synchronizes (`barrier.sync`),
//! then its thread 0 adds to the word with one `atom.add.acq_rel.gpu`: block 0 adds
//! `0x8000_0000 - (blocks - 1)`, every other block adds 1, so the phase's arrivals together add
//! exactly `0x8000_0000` and flip the top bit once all have arrived (the low 31 bits are 0 when
//! a phase starts, so they carry into the top bit only when block 0's add and all `blocks - 1`
//! ones are in: the add that flips the bit is the phase's last). Thread 0 of each block but the
//! last to arrive polls `ld.acquire.gpu` until the top bit differs from what its own add
//! returned; the last arrival, which saw the flip in its own add, does not poll. Then the block
//! synchronizes again.
//!
//! Why this is correct under the PTX memory model: the first `barrier.sync` orders the block's
//! accesses before thread 0's release-RMW; the arrivals form a chain of RMWs, and the value
//! with the flipped bit is written by the last of them, so a poller's `ld.acquire` observes
//! every block's release (observation through read-modify-writes), and so does the last
//! arrival's RMW itself, whose `.acq_rel` makes it the acquire that its skipped poll would
//! have been; the second `barrier.sync` passes that on to the rest of its block (PTX ISA,
//! "Memory Consistency Model", and `barrier`).
//!
//! Cooperative groups does the same arithmetic but adds a `fence.sc.gpu` (`__threadfence()`)
//! before the add and after the poll; release/acquire on the atomics themselves is enough.
//!
//! The launch must be cooperative (all blocks co-resident), or the barrier deadlocks: the host
//! crate's `Device::cooperative_config` sizes such a launch and refuses one that cannot fit.
//!
//! ```ignore
//! use ptx_sync::{block, GridBarrier};
//!
//! /// Every block stores a partial result; after the grid barrier, block 0 adds them up.
//! ///
//! /// # Safety
//! /// A cooperative launch; `partial` holds one `u32` per block, `barrier` points to a
//! /// zeroed `u32`, `out` to one `u32`.
//! #[unsafe(no_mangle)]
//! pub unsafe extern "ptx-kernel" fn doc_grid_sum_partials(
//!     partial: *mut u32,
//!     barrier: *mut u32,
//!     out: *mut u32,
//! ) {
//!     unsafe {
//!         let grid: &GridBarrier = GridBarrier::from_ptr(barrier);
//!         if block::thread_rank() == 0 {
//!             partial.add(block::rank() as usize).write(block::rank() + 1);
//!         }
//!         // Every block's store above happens before every thread's loads below.
//!         grid.sync();
//!         if block::rank() == 0 && block::thread_rank() == 0 {
//!             let mut sum = 0;
//!             for b in 0..block::count() as usize {
//!                 sum += partial.add(b).read();
//!             }
//!             out.write(sum); // blocks * (blocks + 1) / 2
//!         }
//!     }
//! }
//! ```
//!
//! ## PTX and CUDA C++
//!
//! | Item | PTX it emits | CUDA C++ / libcu++ |
//! |------|--------------|--------------------|
//! | `GridBarrier<B>` (GPU only, cooperative launch): `from_ptr`, `sync`, `sync_aligned` | `barrier.sync 0` (`sync_aligned`: `bar.sync 0`), `atom.acq_rel.gpu.add.u32` (the completing block skips its poll), `ld.acquire.gpu` polling, `barrier.sync 0` (`bar.sync 0`) | `cooperative_groups::this_grid().sync()` (aligned, as `sync_aligned`) |

use crate::atomic::Atomic;
use crate::block;
use crate::scope::Gpu;
use crate::wait::{poll_until, Backoff, Spin};
use core::marker::PhantomData;
use core::sync::atomic::Ordering::{AcqRel, Acquire};

/// A barrier for all threads of a cooperative grid, waiting with `B` (busy polling by
/// default: one thread per block polls, and the wait is short).
#[repr(C)]
pub struct GridBarrier<B: Backoff = Spin> {
    arrived: Atomic<u32, Gpu>,
    // `fn() -> B`: each waiter makes its own `B`, none is stored, so `B` stays out of the auto
    // traits (`Send` and `Sync`, as its atomic word: always).
    backoff: PhantomData<fn() -> B>,
}

// The auto traits, checked by the nvptx build (device/tests/auto_traits.rs pins the types the
// host builds): `Send` and `Sync` even with a policy that is neither.
const _: fn() = || {
    #[allow(dead_code)] // only the type is used
    #[derive(Default)]
    struct LocalBackoff(PhantomData<*const ()>);
    impl Backoff for LocalBackoff {
        fn pause(&mut self) {}
        fn waited_ns(&self) -> u64 {
            0
        }
    }
    fn send_sync<T: Send + Sync>() {}
    send_sync::<GridBarrier>();
    send_sync::<GridBarrier<LocalBackoff>>();
};

const FLIP: u32 = 0x8000_0000;

/// The word, from one `Relaxed` load: the phase's parity (the top bit) and the arrivals' sum
/// in the low 31 bits (block 0 adds `0x8000_0000 - (blocks - 1)`, the others 1 each).
impl<B: Backoff> core::fmt::Debug for GridBarrier<B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let w = self.arrived.load(core::sync::atomic::Ordering::Relaxed);
        f.debug_struct("GridBarrier")
            .field("parity", &(w & FLIP != 0))
            .field("arrived", &format_args!("{:#010x}", w & !FLIP))
            .finish()
    }
}

impl<B: Backoff> GridBarrier<B> {
    /// A fresh barrier (the zero word).
    pub const fn new() -> Self {
        GridBarrier {
            arrived: Atomic::new(0),
            backoff: PhantomData,
        }
    }

    /// Views the barrier at `ptr`: one `u32`, zeroed before the launch.
    ///
    /// # Safety
    /// `ptr` is valid, 4-byte aligned, in global memory, lives for the launch, and is used
    /// only through `GridBarrier` meanwhile.
    #[inline(always)]
    pub unsafe fn from_ptr<'a>(ptr: *mut u32) -> &'a Self {
        // SAFETY: `repr(C)` over one `Atomic<u32, Gpu>` and a ZST.
        unsafe { &*ptr.cast::<Self>() }
    }

    /// Waits until every thread of the grid has called `sync` (the same number of times).
    ///
    /// PTX: `barrier.sync 0`; thread 0 of each block `atom.acq_rel.gpu.add.u32`, then (all
    /// but the block that completes the phase) `ld.acquire.gpu.b32` polls with `B`'s pauses;
    /// `barrier.sync 0`.
    ///
    /// ```ignore
    /// use ptx_sync::{block, GridBarrier};
    ///
    /// /// `rounds` rounds of a shift to the right around a ring of `n` values: each round
    /// /// reads what the last one wrote, in other blocks too, so the rounds are kept apart by
    /// /// the grid barrier (two buffers: a round writes the one the last round did not).
    /// ///
    /// /// # Safety
    /// /// A cooperative launch of `n` threads in x; `a` and `b` hold `n` values each;
    /// /// `barrier` points to a zeroed `u32`.
    /// #[unsafe(no_mangle)]
    /// pub unsafe extern "ptx-kernel" fn doc_grid_ring_shift(
    ///     a: *mut u32,
    ///     b: *mut u32,
    ///     n: u32,
    ///     rounds: u32,
    ///     barrier: *mut u32,
    /// ) {
    ///     unsafe {
    ///         let grid: &GridBarrier = GridBarrier::from_ptr(barrier);
    ///         let i = block::index_x() * block::dim_x() + block::thread_x();
    ///         let (mut from, mut to) = (a, b);
    ///         for _ in 0..rounds {
    ///             let left = if i == 0 { n - 1 } else { i - 1 };
    ///             to.add(i as usize).write(from.add(left as usize).read());
    ///             grid.sync(); // this round's writes happen before the next round's reads
    ///             core::mem::swap(&mut from, &mut to);
    ///         }
    ///     }
    /// }
    /// ```
    #[inline(always)]
    pub fn sync(&self) {
        self.sync_between(block::sync);
    }

    /// [`sync`](Self::sync) with the aligned block barrier ([`block::sync_aligned`], `bar.sync
    /// 0`), as cooperative groups' `grid.sync()` has: faster (bench/NOTES.md), and only for a
    /// call that the threads of each warp reach together.
    ///
    /// PTX: as [`sync`](Self::sync), with `bar.sync 0` for `barrier.sync 0`.
    ///
    /// # Safety
    ///
    /// As [`block::sync_aligned`]: every thread of the grid calls it (the same number of
    /// times), and the threads of each warp reach each call together, not from inside a branch,
    /// loop or early return on which the lanes of a warp can disagree. Where that cannot be
    /// promised, use [`sync`](Self::sync).
    #[inline(always)]
    pub unsafe fn sync_aligned(&self) {
        // SAFETY: the caller's contract.
        self.sync_between(|| unsafe { block::sync_aligned() });
    }

    /// The arrival and wait of thread 0 of each block, between two calls of `block_sync`.
    #[inline(always)]
    fn sync_between(&self, block_sync: impl Fn()) {
        block_sync();
        if block::thread_rank() == 0 {
            let add = if block::rank() == 0 {
                FLIP - (block::count() - 1)
            } else {
                1
            };
            // AcqRel: the release of this block's arrival, and the acquire of every other
            // block's for the last arrival, which skips its poll.
            let before = self.arrived.fetch_add(add, AcqRel);
            if (before ^ before.wrapping_add(add)) & FLIP == 0 {
                poll_until::<B, _>(|| {
                    ((self.arrived.load(Acquire) ^ before) & FLIP != 0).then_some(())
                });
            }
        }
        block_sync();
    }
}

impl<B: Backoff> Default for GridBarrier<B> {
    fn default() -> Self {
        Self::new()
    }
}
