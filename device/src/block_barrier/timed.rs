//! Parity and timed waits on [`BlockBarrier`]: libcu++'s `try_wait_parity`, `try_wait_for`,
//! `try_wait_until`, `try_wait_parity_for` and `try_wait_parity_until` of a
//! `cuda::barrier<thread_scope_block>` in shared memory.
//!
//! A timed wait first tests the phase without waiting (`mbarrier.test_wait`), so a deadline
//! that has passed costs exactly one test. Then, on sm_90, it waits in hardware:
//! `mbarrier.try_wait` "is a potentially blocking instruction ... If the phase is not
//! complete, the executing thread may be suspended. Suspended thread resumes execution when
//! the specified phase completes OR before the phase completes following a system-dependent
//! time limit", and its optional `suspendTimeHint` operand gives that limit in nanoseconds
//! (PTX ISA, "mbarrier.test_wait / mbarrier.try_wait", PTX 7.8, sm_90). Passing the time left
//! before the deadline as the hint (at most `u32::MAX` ns, about 4.3 s) lets the thread sleep
//! until the phase completes or the deadline comes, whichever is first, instead of polling;
//! after each `try_wait` that returns false it reads `%globaltimer` and goes on with the new
//! time left, or gives up. libcu++'s `barrier<thread_scope_block>::try_wait_for` does the
//! same (without the first non-blocking test, and with a hint that wraps past 4.3 s). On
//! sm_80, which has no `try_wait`, it polls `mbarrier.test_wait` and the clock.
//!
//! Memory order: `test_wait` and `try_wait` are `.acquire` at `.cta` by default, and the
//! arrivals `.release` (PTX ISA, mbarrier), so a wait that returns `Ok` has seen every write
//! made before an arrival of that phase, as [`wait`](BlockBarrier::wait) does. A wait that
//! times out has acquired nothing.

use super::{BlockBarrier, BlockToken};
use crate::backend::mbarrier;
use crate::clock::Instant;
use crate::wait::{Deadline, TimedOut};
use core::time::Duration;

impl BlockBarrier {
    /// Whether the phase of parity `parity` has completed (acquire on success); never waits.
    /// Phase `k` has parity `k % 2 == 1`: the first phase after `init` is even (`false`). The
    /// phase must be the current one or the one before (libcu++: `try_wait_parity`,
    /// `mbarrier_test_wait_parity`).
    ///
    /// PTX: `mbarrier.test_wait.parity.shared.b64`.
    ///
    /// ```ignore
    /// use ptx_sync::{block, shared, BlockBarrier};
    ///
    /// /// A barrier of one thread: its arrival completes each phase.
    /// #[unsafe(no_mangle)]
    /// pub unsafe extern "ptx-kernel" fn doc_block_barrier_try_wait_parity() {
    ///     shared! { static BAR: BlockBarrier; }
    ///     if block::thread_rank() == 0 {
    ///         let bar = unsafe { BAR.get() };
    ///         bar.init(1);
    ///         assert!(!bar.try_wait_parity(false)); // phase 0 (even) is running
    ///         bar.arrive_and_wait(); // phase 0 completes
    ///         assert!(bar.try_wait_parity(false) && !bar.try_wait_parity(true));
    ///     }
    /// }
    /// ```
    #[inline(always)]
    pub fn try_wait_parity(&self, parity: bool) -> bool {
        // SAFETY: `self` is in this block's shared memory (`from_ptr`'s contract).
        unsafe { mbarrier::test_wait_parity(self.state.get(), parity) }
    }

    /// Waits until the phase of parity `parity` has completed (libcu++: `wait_parity`). On
    /// sm_90 `mbarrier.try_wait.parity` (the thread is suspended in hardware until the phase
    /// completes or a system time limit passes), on sm_80 `test_wait.parity` polls.
    ///
    /// PTX: `mbarrier.try_wait.parity.shared.b64` in a loop (sm_90),
    /// `mbarrier.test_wait.parity.shared.b64` in a loop (sm_80).
    #[inline(always)]
    pub fn wait_parity(&self, parity: bool) {
        #[cfg(target_feature = "sm_90")]
        while !self.try_wait_parity_suspending(parity, None) {}
        #[cfg(not(target_feature = "sm_90"))]
        while !self.try_wait_parity(parity) {}
    }

    /// [`wait`](BlockBarrier::wait), giving up once `timeout` has passed since the first test
    /// failed: `Err(TimedOut)` (libcu++: `try_wait_for`). A zero timeout is one test. The
    /// token stays valid: wait again with it.
    ///
    /// PTX: `mbarrier.test_wait.shared.b64`; if the phase is not complete,
    /// `mov.u64 %rd, %globaltimer;` (the deadline), then, until the deadline:
    /// `mbarrier.try_wait.shared.b64 p, [s], token, hint;` with the nanoseconds left as the
    /// suspend-time hint and `%globaltimer` after each (sm_90), or `mbarrier.test_wait` and
    /// `%globaltimer` (sm_80).
    ///
    /// ```ignore
    /// use core::time::Duration;
    /// use ptx_sync::{block, shared, Atomic, BlockBarrier, Gpu, Ordering::Relaxed};
    ///
    /// /// Every thread gives the others 10 us; one that had to wait longer counts itself in
    /// /// `late`, then waits on with the same token.
    /// ///
    /// /// # Safety
    /// /// `late` points to a `u32` in global memory.
    /// #[unsafe(no_mangle)]
    /// pub unsafe extern "ptx-kernel" fn doc_block_barrier_wait_for(late: *mut u32) {
    ///     shared! { static BAR: BlockBarrier; }
    ///     unsafe {
    ///         let bar = BAR.get();
    ///         if block::thread_rank() == 0 {
    ///             bar.init(block::dim_x());
    ///         }
    ///         block::sync();
    ///         let token = bar.arrive();
    ///         // mbarrier.test_wait, then mbarrier.try_wait with the time left as its hint
    ///         if bar.wait_for(&token, Duration::from_micros(10)).is_err() {
    ///             Atomic::<u32, Gpu>::from_ptr(late).fetch_add(1, Relaxed);
    ///             bar.wait(token);
    ///         }
    ///     }
    /// }
    /// ```
    #[inline(always)]
    pub fn wait_for(&self, token: &BlockToken, timeout: Duration) -> Result<(), TimedOut> {
        self.wait_within(
            Deadline::after(timeout),
            || self.test_wait(token),
            |hint| self.try_wait_suspending(token, hint),
        )
    }

    /// [`wait`](BlockBarrier::wait) until `deadline` on the [`clock`](crate::clock):
    /// `Err(TimedOut)` after it (libcu++: `try_wait_until`). A deadline that has passed is one
    /// `mbarrier.test_wait`.
    ///
    /// PTX: as [`wait_for`](BlockBarrier::wait_for), without the clock read before the loop.
    #[inline(always)]
    pub fn wait_until(&self, token: &BlockToken, deadline: Instant) -> Result<(), TimedOut> {
        self.wait_within(
            Deadline::at(deadline),
            || self.test_wait(token),
            |hint| self.try_wait_suspending(token, hint),
        )
    }

    /// [`wait_parity`](BlockBarrier::wait_parity), giving up once `timeout` has passed since
    /// the first test failed (libcu++: `try_wait_parity_for`).
    ///
    /// PTX: as [`wait_for`](BlockBarrier::wait_for), with the `.parity` forms
    /// (`mbarrier.test_wait.parity`, `mbarrier.try_wait.parity` with the hint).
    #[inline(always)]
    pub fn wait_parity_for(&self, parity: bool, timeout: Duration) -> Result<(), TimedOut> {
        self.wait_within(
            Deadline::after(timeout),
            || self.try_wait_parity(parity),
            |hint| self.try_wait_parity_suspending(parity, hint),
        )
    }

    /// [`wait_parity`](BlockBarrier::wait_parity) until `deadline` (libcu++:
    /// `try_wait_parity_until`). A deadline that has passed is one
    /// `mbarrier.test_wait.parity`.
    ///
    /// PTX: as [`wait_parity_for`](BlockBarrier::wait_parity_for).
    #[inline(always)]
    pub fn wait_parity_until(&self, parity: bool, deadline: Instant) -> Result<(), TimedOut> {
        self.wait_within(
            Deadline::at(deadline),
            || self.try_wait_parity(parity),
            |hint| self.try_wait_parity_suspending(parity, hint),
        )
    }

    /// The timed wait: one non-blocking `test`, then `wait(hint)` with the nanoseconds left
    /// until the deadline passes.
    #[inline(always)]
    fn wait_within(
        &self,
        deadline: impl FnOnce() -> Deadline,
        test: impl Fn() -> bool,
        wait: impl Fn(Option<u32>) -> bool,
    ) -> Result<(), TimedOut> {
        if test() {
            return Ok(());
        }
        let deadline = deadline();
        loop {
            let left = deadline.left_ns();
            if left == 0 {
                return Err(TimedOut);
            }
            // sm_90: suspends until the phase completes or `left` ns pass; sm_80: one test.
            if wait(Some(left)) {
                return Ok(());
            }
        }
    }

    /// `mbarrier.try_wait` on `token`'s phase, suspending up to `hint` ns (or the system's
    /// limit for `None`).
    #[cfg(target_feature = "sm_90")]
    #[inline(always)]
    fn try_wait_suspending(&self, token: &BlockToken, hint: Option<u32>) -> bool {
        // SAFETY: as in `try_wait_parity`.
        unsafe { mbarrier::try_wait(self.state.get(), token.0, hint) }
    }

    #[cfg(not(target_feature = "sm_90"))]
    #[inline(always)]
    fn try_wait_suspending(&self, token: &BlockToken, _hint: Option<u32>) -> bool {
        self.test_wait(token)
    }

    /// `mbarrier.try_wait.parity`, suspending up to `hint` ns (or the system's limit).
    #[cfg(target_feature = "sm_90")]
    #[inline(always)]
    fn try_wait_parity_suspending(&self, parity: bool, hint: Option<u32>) -> bool {
        // SAFETY: as in `try_wait_parity`.
        unsafe { mbarrier::try_wait_parity(self.state.get(), parity, hint) }
    }

    #[cfg(not(target_feature = "sm_90"))]
    #[inline(always)]
    fn try_wait_parity_suspending(&self, parity: bool, _hint: Option<u32>) -> bool {
        self.try_wait_parity(parity)
    }
}
