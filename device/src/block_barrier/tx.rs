//! Transaction counts on [`BlockBarrier`] (sm_90): what `cuda::device::barrier_expect_tx` and
//! `barrier_arrive_tx` do for a `cuda::barrier<thread_scope_block>`.
//!
//! From sm_90 an `mbarrier` also counts bytes of asynchronous copies, its *tx-count* (PTX ISA,
//! "Tracking asynchronous operations by the mbarrier object"). A phase completes when its
//! pending arrivals AND its tx-count have both reached zero ("Phase completion of the mbarrier
//! object"): `expect_tx(n)` raises the tx-count by `n`, and every
//! [`bulk::copy_global_to_shared`](crate::bulk::copy_global_to_shared) into the barrier
//! lowers it by the bytes it copied once they have landed (its *complete-tx*). So a thread that
//! announces the bytes of the copies before (or in the same instruction as) its own arrival
//! holds the phase open until the data is there, and a wait that returns has seen it.
//!
//! The tx-count lies in `-(2^20 - 1) ..= 2^20 - 1`, so the bytes announced for one phase stay
//! below 1 MiB (debug builds trap on a single larger count). The order of `expect_tx` and the
//! copies within a phase does not matter (the count may go negative meanwhile); what matters
//! is that it happens before the announcing thread's arrival, because the phase can complete
//! at that arrival.

use super::{BlockBarrier, BlockToken};
use crate::backend::mbarrier;

/// The largest tx-count an `mbarrier` holds (PTX ISA, "Contents of the mbarrier object").
pub(crate) const MAX_TX_COUNT: u32 = (1 << 20) - 1;

const TOO_MANY: &core::ffi::CStr =
    c"ptx-sync: BlockBarrier transaction count above 2^20 - 1 bytes (the mbarrier's tx-count range)\n";

impl BlockBarrier {
    /// Expects `bytes` more bytes of asynchronous copies in the current phase: the phase does
    /// not complete until copies into this barrier have delivered them. Does not arrive.
    ///
    /// `bytes` is at most 2^20 - 1 (debug builds trap above). Relaxed: it orders no memory
    /// (the arrival that follows it releases, the wait acquires). sm_90, GPU only.
    ///
    /// PTX: `mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [s], bytes;` (libcu++'s
    /// `barrier_expect_tx`).
    ///
    /// ```ignore
    /// use ptx_sync::{block, bulk, shared, BlockBarrier};
    ///
    /// /// One thread announces two copies of 4 KiB, then arrives like every other thread.
    /// ///
    /// /// # Safety
    /// /// `src` is 16-byte aligned global memory of 2048 `u32`s; `out` holds one `u32` per
    /// /// thread of the block (x only).
    /// #[unsafe(no_mangle)]
    /// pub unsafe extern "ptx-kernel" fn doc_block_barrier_expect_tx(src: *const u32, out: *mut u32) {
    ///     shared! {
    ///         static BAR: BlockBarrier;
    ///         #[align(16)]
    ///         static BUF: [u32; 2048];
    ///     }
    ///     unsafe {
    ///         let bar = BAR.get();
    ///         let buf = BUF.shared().cast::<u32>();
    ///         let t = block::thread_x();
    ///         if t == 0 {
    ///             bar.init(block::dim_x());
    ///         }
    ///         block::sync();
    ///         if t == 0 {
    ///             bar.expect_tx(2 * 4096); // mbarrier.expect_tx.relaxed.cta.shared::cta.b64
    ///             bulk::copy_global_to_shared(buf, src, 4096, bar);
    ///             bulk::copy_global_to_shared(buf.add(1024), src.add(1024), 4096, bar);
    ///         }
    ///         // The phase completes once every thread has arrived and the 8192 bytes landed.
    ///         bar.wait(bar.arrive());
    ///         out.add(t as usize).write(buf.add(t as usize).read());
    ///     }
    /// }
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build, traps with a message when `bytes` is above `2^20 - 1` or the barrier is
    /// not in this block's shared memory; release builds do not check.
    #[inline(always)]
    pub fn expect_tx(&self, bytes: u32) {
        if cfg!(debug_assertions) && bytes > MAX_TX_COUNT {
            crate::debug::trap(TOO_MANY);
        }
        self.debug_check_shared();
        // SAFETY: `self` is in this block's shared memory (`from_ptr`'s contract). Not
        // `nomem`: the count must stay between the copies and the arrival it belongs to.
        unsafe { mbarrier::expect_tx(self.state.get(), bytes) }
    }

    /// Expects `bytes` more bytes of asynchronous copies and arrives, in one instruction (an
    /// *expect-tx* then an *arrive-on* of count 1); returns the phase's token, as
    /// [`arrive`](BlockBarrier::arrive). What the thread that issues a phase's copies calls
    /// instead of `arrive`.
    ///
    /// `bytes` is at most 2^20 - 1 (debug builds trap above). Release at `.cta`, as `arrive`:
    /// the thread's writes before it are visible to the threads whose wait on this phase
    /// returns. sm_90, GPU only.
    ///
    /// PTX: `mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 state, [s], bytes;`
    /// (libcu++'s `barrier_arrive_tx(bar, 1, bytes)`).
    ///
    /// ```ignore
    /// use ptx_sync::{block, bulk, shared, BlockBarrier};
    ///
    /// /// Thread 0 copies 4 KiB and announces them in its own arrival.
    /// ///
    /// /// # Safety
    /// /// `src` is 16-byte aligned global memory of 1024 `u32`s; `out` holds one `u32` per
    /// /// thread of the block (x only).
    /// #[unsafe(no_mangle)]
    /// pub unsafe extern "ptx-kernel" fn doc_block_barrier_arrive_expect_tx(
    ///     src: *const u32,
    ///     out: *mut u32,
    /// ) {
    ///     shared! {
    ///         static BAR: BlockBarrier;
    ///         #[align(16)]
    ///         static BUF: [u32; 1024];
    ///     }
    ///     unsafe {
    ///         let bar = BAR.get();
    ///         let buf = BUF.shared().cast::<u32>();
    ///         let t = block::thread_x();
    ///         if t == 0 {
    ///             bar.init(block::dim_x());
    ///         }
    ///         block::sync();
    ///         let token = if t == 0 {
    ///             bulk::copy_global_to_shared(buf, src, 4096, bar);
    ///             // mbarrier.arrive.expect_tx.release.cta.shared::cta.b64
    ///             bar.arrive_expect_tx(4096)
    ///         } else {
    ///             bar.arrive()
    ///         };
    ///         bar.wait(token); // the 4096 bytes are in `buf`
    ///         out.add(t as usize).write(buf.add(t as usize).read());
    ///     }
    /// }
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build, traps with a message when `bytes` is above `2^20 - 1` or the barrier is
    /// not in this block's shared memory; release builds do not check.
    #[inline(always)]
    pub fn arrive_expect_tx(&self, bytes: u32) -> BlockToken {
        if cfg!(debug_assertions) && bytes > MAX_TX_COUNT {
            crate::debug::trap(TOO_MANY);
        }
        self.debug_check_shared();
        // SAFETY: as in `expect_tx`.
        BlockToken(unsafe { mbarrier::arrive_expect_tx(self.state.get(), bytes) })
    }

    /// Counts `bytes` of the current phase's expected transactions as done without a copy
    /// (a *complete-tx*): the phase completes once its arrivals are in and its tx-count is
    /// zero. For bytes that were announced but will not come (a copy the thread decided not to
    /// issue); over-completing makes the count negative and holds the phase open.
    ///
    /// `bytes` is at most 2^20 - 1 (debug builds trap above). Relaxed: it orders no memory.
    /// sm_90, GPU only.
    ///
    /// PTX: `mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [s], bytes;`.
    ///
    /// ```ignore
    /// use ptx_sync::{block, bulk, shared, BlockBarrier};
    ///
    /// /// Thread 0 announces 4096 bytes, then finds that it has nothing to copy (`n == 0`).
    /// ///
    /// /// # Safety
    /// /// `src` is 16-byte aligned global memory of 1024 `u32`s (when `n != 0`).
    /// #[unsafe(no_mangle)]
    /// pub unsafe extern "ptx-kernel" fn doc_block_barrier_complete_tx(src: *const u32, n: u32) {
    ///     shared! {
    ///         static BAR: BlockBarrier;
    ///         #[align(16)]
    ///         static BUF: [u32; 1024];
    ///     }
    ///     unsafe {
    ///         let bar = BAR.get();
    ///         if block::thread_x() == 0 {
    ///             bar.init(block::dim_x());
    ///         }
    ///         block::sync();
    ///         if block::thread_x() == 0 {
    ///             bar.expect_tx(4096);
    ///             if n == 0 {
    ///                 // mbarrier.complete_tx.relaxed.cta.shared::cta.b64: the phase is not
    ///                 // held open for bytes that will not come.
    ///                 bar.complete_tx(4096);
    ///             } else {
    ///                 bulk::copy_global_to_shared(BUF.shared().cast::<u32>(), src, 4096, bar);
    ///             }
    ///         }
    ///         bar.wait(bar.arrive());
    ///     }
    /// }
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build, traps with a message when `bytes` is above `2^20 - 1` or the barrier is
    /// not in this block's shared memory; release builds do not check.
    #[inline(always)]
    pub fn complete_tx(&self, bytes: u32) {
        if cfg!(debug_assertions) && bytes > MAX_TX_COUNT {
            crate::debug::trap(TOO_MANY);
        }
        self.debug_check_shared();
        // SAFETY: as in `expect_tx`.
        unsafe { mbarrier::complete_tx(self.state.get(), bytes) }
    }

    /// The barrier's `.shared` address (for the instructions that name it by that address).
    #[inline(always)]
    pub(crate) fn shared_address(&self) -> u32 {
        mbarrier::shared_address(self.state.get())
    }
}
