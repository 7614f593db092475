//! `Queue<T, N, S, B>`: a bounded multi-producer multi-consumer queue of `N` slots, with a
//! turn word per slot (the "turn" ring of Dmitry Vyukov's bounded MPMC queue, in the form of
//! Erik Rigtorp's `MPMCQueue`).
//!
//! Algorithm. Two 64-bit ticket counters, `tail` (producers) and `head` (consumers), each on a
//! 128-byte line of its own, then `N` slots of a `u32` turn word and a `T`. Ticket `k` belongs
//! to slot `k % N` in round `r = k / N`. Its producer waits until the slot's turn is `2r` (the
//! consumer of round `r - 1` is done with it), writes the value and publishes `2r + 1`; its
//! consumer waits until the turn is `2r + 1`, reads the value and publishes `2r + 2`, which is
//! the next round's `2(r + 1)`. [`push`](Queue::push) and [`pop`](Queue::pop) take their ticket
//! with `fetch_add` and wait for their turn; [`try_push`](Queue::try_push) and
//! [`try_pop`](Queue::try_pop) never wait: they look at the turn of the ticket the counter
//! names and take that ticket with a compare-and-swap only if its turn has come, failing when
//! the queue is full (empty) instead. All-zero bytes are an empty queue. Tickets are 64-bit,
//! so they never wrap in practice (2^64 items), and a ticket's slot is `k % N` for any `N`:
//! `N` need not be a power of two (a power of two makes `%` and `/` a mask and a shift). Turn
//! words are `u32` and wrap: a waiter compares for equality with its own round's value, and a
//! slot's turn is never 2^31 rounds behind its waiter. `N >= 1` is checked at compile time.
//!
//! **Warp aggregation**: the lanes of a warp that call `push` (or `pop`) together on the same
//! queue (`activemask.b32`, `match.any.sync.b64` on the address of the ticket counter they
//! draw from: [`warp::peers`]; pushes and pops never share a group) take their
//! tickets with one `atom.add` by the lowest lane, which hands each lane its own with a
//! `shfl.sync` (consecutive tickets in lane order). Then each lane waits for its own slot,
//! alone. Lanes on different queues, and the try and timed forms, take their own tickets.
//!
//! **Progress** (why a full warp of producers and consumers of one queue cannot deadlock): the
//! only warp collectives (`activemask`, `match.any.sync`, `shfl.sync`) come before any wait,
//! and they name only the lanes that reached them together, so no lane ever waits at a
//! collective for a lane that spins. What a lane spins on is memory: the producer of ticket `k`
//! waits for the consumer of ticket `k - N`, the consumer of ticket `k` for the producer of
//! ticket `k`. That waits-for relation goes to strictly smaller tickets (or, for a consumer,
//! to the producer of the same ticket, which waits only on smaller ones), so it has no cycle:
//! once every ticket taken has its counterpart taken too (as many pushes as pops, or bounded
//! waits), the lowest waiting ticket's counterpart is running. That the counterpart gets to run
//! while lanes of its own warp spin is the hardware's guarantee since sm_70 (independent thread
//! scheduling: each thread has its own program counter and the scheduler keeps every one
//! advancing, what the CUDA Programming Guide calls starvation-free algorithms), not the PTX
//! memory model's. Before sm_70 a spinning lane could hold its warp forever; the crate refuses
//! to build there. Across blocks, a blocking `push`/`pop` that waits for another block needs
//! that block to be resident: a cooperative launch, or a grid that fits the GPU at once.
//!
//! Why this is correct under the PTX memory model: a slot changes hands only through its turn
//! word. The `st.release` of the producer's turn `2r + 1` follows its write of the value, and
//! the consumer's `ld.acquire` that reads `2r + 1` precedes its read of the value, so the
//! release synchronizes with the acquire and the value is visible (PTX ISA, "Memory Consistency
//! Model": release and acquire patterns). Likewise the consumer's `st.release` of `2r + 2`
//! after its read and the next producer's `ld.acquire` of it before its write order the read
//! before the overwrite. Tickets need no order (`atom.relaxed`): they only decide which slot
//! and round a thread uses, and an RMW hands out each ticket once. A try form's `ld.acquire` of
//! the turn comes before its compare-and-swap of the ticket, which succeeds only if no other
//! thread took that ticket, so the turn it read is still its own.
//!
//! On the host every thread is a warp of one (what loom checks), except under
//! `warp::emulation`, where device/tests/queue.rs runs the aggregation with real lanes.
//!
//! ```
//! use ptx_sync::{Gpu, Queue};
//!
//! // Two producers, two consumers, a ring of 8 slots: every item arrives exactly once.
//! let q: Queue<u32, 8, Gpu> = Queue::new();
//! let sums: Vec<u64> = std::thread::scope(|s| {
//!     for p in 0..2 {
//!         let q = &q;
//!         s.spawn(move || (0..500).for_each(|i| q.push(p * 500 + i)));
//!     }
//!     let consumers: Vec<_> = (0..2)
//!         .map(|_| s.spawn(|| (0..500).map(|_| u64::from(q.pop())).sum::<u64>()))
//!         .collect();
//!     consumers.into_iter().map(|c| c.join().unwrap()).collect()
//! });
//! assert_eq!(sums.iter().sum::<u64>(), (0..1000).sum::<u64>());
//! assert_eq!(q.try_pop(), None);
//! ```
//!
//! ## PTX and CUDA C++
//!
//! | Item | PTX it emits | CUDA C++ / libcu++ |
//! |------|--------------|--------------------|
//! | [`Queue<T, N, S, B>`](crate::queue::Queue): `push`, `pop`, `try_push`, `try_pop`, `push_for`, `push_until`, `pop_for`, `pop_until`, `from_ptr` | `atom.relaxed.S.add.u64` (tickets; per warp `activemask.b32`, `match.any.sync.b64`, `shfl.sync.idx.b32`), `ld.acquire.S.b32` polling of the turn, `st.release.S.b32` (publish); try forms `ld.relaxed.S.b64` + `atom.relaxed.S.cas.b64` | none in libcu++: a hand-written ring on `cuda::atomic_ref` |

use crate::atomic::Atomic;
use crate::clock::Instant;
use crate::loom::DataCell;
use crate::scope::{Gpu, Scope};
use crate::wait::{poll_until_deadline, poll_until_for, Backoff, NanoSleep};
use crate::warp;
use core::marker::PhantomData;
use core::mem::MaybeUninit;
use core::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use core::time::Duration;

/// What a debug build reports for an object in local memory.
const LOCAL: &core::ffi::CStr =
    c"ptx-sync: Queue in local memory (a kernel's local variable): put it in shared or global memory\n";

/// A bounded multi-producer multi-consumer queue of `N` values of `T`, for threads within scope
/// `S`, waiting with `B`. `N` is any capacity from 1 up (checked at compile time); a power of
/// two makes the slot arithmetic cheapest.
///
/// All-zero bytes are an empty queue, so a `Queue` in memory the host zeroed (or shared memory
/// a block zeroed) can be used through [`Queue::from_ptr`]; [`Queue::new`] is a `const fn`.
///
/// Layout (`repr(C)`, the same on the host and the GPU): the producers' ticket (`u64`) at 0,
/// the consumers' ticket at 128 (each on a 128-byte line of its own), then at
/// [`Queue::SLOTS_OFFSET`] `N` slots of [`Queue::SLOT_SIZE`] bytes each: a `u32` turn word
/// (`2r` free for round `r`, `2r + 1` holding round `r`'s value), then the value. A
/// `Queue<u32, 1024>` is 8,448 bytes.
///
/// Blocking [`push`](Queue::push) and [`pop`](Queue::pop) wait for their counterpart: a `pop`
/// with no matching `push` ever waits forever (use [`pop_for`](Queue::pop_for) to bound it),
/// and across blocks the block it waits for must be resident (a cooperative launch, or a grid
/// that fits). The lanes of a warp may push and pop the same queue at once (see the
/// [module docs](self) for why that makes progress).
///
/// Where it lives: shared or global memory (or mapped host memory for `Sys`), never a
/// kernel's local variable: that is `.local` memory, private to one thread, where the PTX ISA
/// leaves atomics undefined. A debug build traps with a message when it finds one there
/// (`isspacep.local`).
///
/// ```
/// use ptx_sync::{Cta, Queue};
/// let q: Queue<u64, 2, Cta> = Queue::new();
/// q.push(1);
/// assert_eq!(q.try_push(2), Ok(()));
/// assert_eq!(q.try_push(3), Err(3)); // full
/// assert_eq!((q.pop(), q.pop()), (1, 2));
/// assert_eq!(q.try_pop(), None); // empty
/// ```
#[repr(C)]
pub struct Queue<T, const N: usize, S: Scope = Gpu, B: Backoff = NanoSleep> {
    /// The next producer ticket.
    tail: Atomic<u64, S>,
    _line0: [u64; 15],
    /// The next consumer ticket.
    head: Atomic<u64, S>,
    _line1: [u64; 15],
    slots: [Slot<T, S>; N],
    // `fn() -> B`: each waiter makes its own `B`, none is stored, so `B` stays out of the auto
    // traits.
    backoff: PhantomData<fn() -> B>,
}

/// One slot: its turn word, then its value (initialized while the turn is odd).
#[repr(C)]
struct Slot<T, S: Scope> {
    turn: Atomic<u32, S>,
    value: DataCell<MaybeUninit<T>>,
}

impl<T, S: Scope> Slot<T, S> {
    const_fn! {
    fn empty() -> Self {
        Slot {
            turn: Atomic::new(0),
            value: DataCell::new(MaybeUninit::uninit()),
        }
    }
    }
}

// SAFETY: as crossbeam's `ArrayQueue` and std's `mpsc`: values move from the pushing thread to
// the popping one (`T: Send`), and no two threads ever reach one value at once (a slot's turn
// word hands it over), so sharing the queue never shares a `T`.
unsafe impl<T: Send, const N: usize, S: Scope, B: Backoff> Sync for Queue<T, N, S, B> {}

/// The tickets taken so far (`Relaxed` loads) and the capacity.
impl<T, const N: usize, S: Scope, B: Backoff> core::fmt::Debug for Queue<T, N, S, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Queue")
            .field("pushes", &self.tail.load(Relaxed))
            .field("pops", &self.head.load(Relaxed))
            .field("capacity", &N)
            .finish()
    }
}

impl<T, const N: usize, S: Scope, B: Backoff> Queue<T, N, S, B> {
    /// The capacity, `N`, checked at compile time: at least one slot (a ring's round of `N`
    /// tickets must advance; any `N` from 1 up works, a power of two or not). `new` and
    /// `from_ptr` evaluate it, so a queue of no slots does not build:
    ///
    /// ```compile_fail
    /// let q: ptx_sync::Queue<u32, 0> = ptx_sync::Queue::new(); // error: N must be at least 1
    /// ```
    ///
    /// ```
    /// let q: ptx_sync::Queue<u32, 1> = ptx_sync::Queue::new();
    /// assert_eq!(ptx_sync::Queue::<u32, 6>::CAPACITY, 6);
    /// # drop(q);
    /// ```
    pub const CAPACITY: usize = {
        assert!(N >= 1, "Queue<T, N>: N must be at least 1");
        N
    };

    /// Byte offset of the first slot from the start of the queue (256: the two ticket lines).
    pub const SLOTS_OFFSET: usize = core::mem::offset_of!(Self, slots);

    /// Bytes per slot: the `u32` turn word, then the value (aligned), rounded up to the
    /// slot's alignment.
    pub const SLOT_SIZE: usize = core::mem::size_of::<Slot<T, S>>();

    const_fn! {
    /// An empty queue.
    pub fn new() -> Self {
        let _ = Self::CAPACITY;
        Queue {
            tail: Atomic::new(0),
            _line0: [0; 15],
            head: Atomic::new(0),
            _line1: [0; 15],
            slots: Self::empty_slots(),
            backoff: PhantomData,
        }
    }
    }

    #[cfg(not(loom))]
    const fn empty_slots() -> [Slot<T, S>; N] {
        [const { Slot::empty() }; N]
    }

    #[cfg(loom)]
    fn empty_slots() -> [Slot<T, S>; N] {
        core::array::from_fn(|_| Slot::empty())
    }

    /// Views the queue at `ptr` (zeroed memory is an empty queue).
    ///
    /// # Safety
    /// `ptr` points to a valid, aligned `Queue<T, N, S, B>` (all-zero bytes are an empty one)
    /// that lives for `'a`.
    pub unsafe fn from_ptr<'a>(ptr: *mut Self) -> &'a Self {
        let _ = Self::CAPACITY;
        // SAFETY: the caller's contract.
        unsafe { &*ptr }
    }

    /// Appends `value`, waiting while its slot is still full (the queue holds `N` values not
    /// yet taken by the consumers that hold earlier tickets).
    ///
    /// PTX: `activemask.b32` and `match.any.sync.b64` (the lanes pushing to this queue); the
    /// group's lowest lane takes the group's tickets with `atom.relaxed.<scope>.add.u64` and
    /// hands them out with `shfl.sync.idx.b32` (a lane alone takes its own); then
    /// `ld.acquire.<scope>.b32` polls of the slot's turn with `B`'s pauses (`nanosleep.u32` for
    /// the default), the value's stores, and `st.release.<scope>.b32` of the next turn.
    ///
    /// ```
    /// use ptx_sync::{Gpu, Queue};
    ///
    /// // A ring of 4 slots carries 100 values from one thread to another, in order.
    /// let q: Queue<u32, 4, Gpu> = Queue::new();
    /// std::thread::scope(|s| {
    ///     s.spawn(|| (0..100).for_each(|i| q.push(i))); // waits whenever 4 are in flight
    ///     for i in 0..100 {
    ///         assert_eq!(q.pop(), i); // one producer: its values arrive in order
    ///     }
    /// });
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build on the GPU, traps with a message when the queue is in local memory (a
    /// kernel's local variable); release builds and the host backend do not check.
    #[inline(always)]
    pub fn push(&self, value: T) {
        crate::debug::check_not_local(self, LOCAL);
        let ticket = self.tickets(&self.tail);
        let (slot, turn) = self.slot(ticket);
        let mut backoff = B::default();
        // Acquire: the previous round's consumer released the slot after its read.
        while slot.turn.load(Acquire) != turn {
            backoff.pause();
        }
        self.fill(slot, turn, value);
    }

    /// Takes the oldest value of the ticket it draws, waiting until its producer has put it
    /// there.
    ///
    /// PTX: as [`push`](Self::push), on the consumers' ticket: `atom.relaxed.<scope>.add.u64`
    /// (per warp group, with `shfl.sync.idx.b32`), `ld.acquire.<scope>.b32` polls of the turn,
    /// the value's loads, `st.release.<scope>.b32` of the next turn.
    ///
    /// ```
    /// use ptx_sync::{Gpu, Queue};
    ///
    /// let q: Queue<(u32, u32), 2, Gpu> = Queue::new();
    /// std::thread::scope(|s| {
    ///     let consumer = s.spawn(|| q.pop()); // waits for the push below
    ///     q.push((7, 8));
    ///     assert_eq!(consumer.join().unwrap(), (7, 8));
    /// });
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build on the GPU, traps with a message when the queue is in local memory (a
    /// kernel's local variable); release builds and the host backend do not check.
    #[inline(always)]
    pub fn pop(&self) -> T {
        crate::debug::check_not_local(self, LOCAL);
        let ticket = self.tickets(&self.head);
        let (slot, turn) = self.slot(ticket);
        let full = turn.wrapping_add(1);
        let mut backoff = B::default();
        // Acquire: this round's producer released the slot after its write.
        while slot.turn.load(Acquire) != full {
            backoff.pause();
        }
        self.empty(slot, full)
    }

    /// Appends `value` if the next slot is free now; never waits. `Err(value)` when the queue
    /// is full (the slot of the next ticket still holds a value, or a consumer holding its
    /// ticket has not finished with it). Not warp-aggregated.
    ///
    /// PTX: `ld.relaxed.<scope>.b64` of the producers' ticket, `ld.acquire.<scope>.b32` of its
    /// slot's turn, and if the turn has come `atom.relaxed.<scope>.cas.b64` to take the ticket
    /// (again from the value it finds, if another producer took it first); the value's stores
    /// and `st.release.<scope>.b32`.
    ///
    /// ```
    /// use ptx_sync::{Gpu, Queue};
    /// let q: Queue<u32, 3, Gpu> = Queue::new(); // not a power of two
    /// assert!((0..3).all(|i| q.try_push(i).is_ok()));
    /// assert_eq!(q.try_push(9), Err(9));
    /// assert_eq!(q.try_pop(), Some(0));
    /// assert_eq!(q.try_push(9), Ok(()));
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build on the GPU, traps with a message when the queue is in local memory (a
    /// kernel's local variable); release builds and the host backend do not check.
    #[inline(always)]
    pub fn try_push(&self, value: T) -> Result<(), T> {
        crate::debug::check_not_local(self, LOCAL);
        self.try_push_now(value)
    }

    /// Takes the oldest value if it is there now; never waits. `None` when the queue is empty
    /// (or the value of the next ticket is still being written by its producer). Not
    /// warp-aggregated.
    ///
    /// PTX: as [`try_push`](Self::try_push), on the consumers' ticket and the turn `2r + 1`;
    /// the value's loads and `st.release.<scope>.b32`.
    ///
    /// ```
    /// use ptx_sync::{Gpu, Queue};
    /// let q: Queue<u32, 4, Gpu> = Queue::new();
    /// assert_eq!(q.try_pop(), None);
    /// q.push(5);
    /// assert_eq!(q.try_pop(), Some(5));
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build on the GPU, traps with a message when the queue is in local memory (a
    /// kernel's local variable); release builds and the host backend do not check.
    #[inline(always)]
    pub fn try_pop(&self) -> Option<T> {
        crate::debug::check_not_local(self, LOCAL);
        self.try_pop_now()
    }

    /// [`try_push`](Self::try_push) repeated until `timeout` has passed since the first attempt
    /// failed; `Err(value)` then. It never holds a ticket while it waits, so giving up leaves
    /// nothing behind (and it can lose to blocking pushes, which queue). A zero timeout is one
    /// attempt. On the host, time is the virtual [`clock`](crate::clock).
    ///
    /// PTX: [`try_push`](Self::try_push)'s per attempt, `B`'s pauses between attempts, and
    /// `mov.u64 %rd, %globaltimer;` after each failed one.
    ///
    /// ```
    /// use core::time::Duration;
    /// use ptx_sync::{Gpu, Queue};
    /// let q: Queue<u32, 1, Gpu> = Queue::new();
    /// assert_eq!(q.push_for(1, Duration::ZERO), Ok(()));
    /// assert_eq!(q.push_for(2, Duration::from_micros(10)), Err(2)); // nobody pops
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build on the GPU, traps with a message when the queue is in local memory (a
    /// kernel's local variable); release builds and the host backend do not check.
    #[inline(always)]
    pub fn push_for(&self, value: T, timeout: Duration) -> Result<(), T> {
        crate::debug::check_not_local(self, LOCAL);
        let mut held = Some(value);
        let r = poll_until_for::<B, _>(timeout, || self.push_attempt(&mut held));
        r.map_err(|_| held.take().expect("a failed push keeps its value"))
    }

    /// [`push_for`](Self::push_for) with a deadline on the [`clock`](crate::clock): a deadline
    /// that has passed is one attempt.
    ///
    /// PTX: as [`push_for`](Self::push_for).
    ///
    /// ```
    /// use ptx_sync::{clock::Instant, Gpu, Queue};
    /// let q: Queue<u32, 1, Gpu> = Queue::new();
    /// assert_eq!(q.push_until(4, Instant::now()), Ok(()));
    /// assert_eq!(q.push_until(5, Instant::now()), Err(5));
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build on the GPU, traps with a message when the queue is in local memory (a
    /// kernel's local variable); release builds and the host backend do not check.
    #[inline(always)]
    pub fn push_until(&self, value: T, deadline: Instant) -> Result<(), T> {
        crate::debug::check_not_local(self, LOCAL);
        let mut held = Some(value);
        let r = poll_until_deadline::<B, _>(deadline, || self.push_attempt(&mut held));
        r.map_err(|_| held.take().expect("a failed push keeps its value"))
    }

    /// [`try_pop`](Self::try_pop) repeated until `timeout` has passed since the first attempt
    /// failed; `None` then. Holds no ticket while it waits. A zero timeout is one attempt. On
    /// the host, time is the virtual [`clock`](crate::clock).
    ///
    /// PTX: [`try_pop`](Self::try_pop)'s per attempt, `B`'s pauses between attempts, and
    /// `mov.u64 %rd, %globaltimer;` after each failed one.
    ///
    /// ```
    /// use core::time::Duration;
    /// use ptx_sync::{Gpu, Queue};
    /// let q: Queue<u32, 2, Gpu> = Queue::new();
    /// assert_eq!(q.pop_for(Duration::from_micros(10)), None); // nobody pushes
    /// q.push(3);
    /// assert_eq!(q.pop_for(Duration::ZERO), Some(3));
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build on the GPU, traps with a message when the queue is in local memory (a
    /// kernel's local variable); release builds and the host backend do not check.
    #[inline(always)]
    pub fn pop_for(&self, timeout: Duration) -> Option<T> {
        crate::debug::check_not_local(self, LOCAL);
        poll_until_for::<B, _>(timeout, || self.try_pop_now()).ok()
    }

    /// [`pop_for`](Self::pop_for) with a deadline on the [`clock`](crate::clock): a deadline
    /// that has passed is one attempt.
    ///
    /// PTX: as [`pop_for`](Self::pop_for).
    ///
    /// ```
    /// use ptx_sync::{clock::Instant, Gpu, Queue};
    /// let q: Queue<u32, 2, Gpu> = Queue::new();
    /// q.push(6);
    /// assert_eq!(q.pop_until(Instant::now()), Some(6));
    /// assert_eq!(q.pop_until(Instant::now()), None);
    /// ```
    ///
    /// # Panics
    ///
    /// In a debug build on the GPU, traps with a message when the queue is in local memory (a
    /// kernel's local variable); release builds and the host backend do not check.
    #[inline(always)]
    pub fn pop_until(&self, deadline: Instant) -> Option<T> {
        crate::debug::check_not_local(self, LOCAL);
        poll_until_deadline::<B, _>(deadline, || self.try_pop_now()).ok()
    }

    /// This lane's ticket from `counter`: one `atom.add` per group of lanes that call
    /// together on this queue, handed out in lane order with a shuffle.
    #[inline(always)]
    fn tickets(&self, counter: &Atomic<u64, S>) -> u64 {
        // Grouped by the counter, not by the queue: pushes and pops never share a group, even
        // should the compiler compute the active mask once for a `push` and a `pop` in the two
        // arms of a branch.
        let mask = warp::peers(counter);
        let lane = warp::lane();
        // Relaxed: a ticket only picks the slot and round; the turn words order the data.
        if mask == 1 << lane {
            return counter.fetch_add(1, Relaxed);
        }
        let leader = mask.trailing_zeros();
        let first = if lane == leader {
            counter.fetch_add(u64::from(mask.count_ones()), Relaxed)
        } else {
            0
        };
        let first = warp::shfl_idx(mask, first, leader);
        first + u64::from((mask & ((1u32 << lane) - 1)).count_ones())
    }

    /// Ticket `ticket`'s slot and the turn that frees it for its producer (`2r`).
    #[inline(always)]
    fn slot(&self, ticket: u64) -> (&Slot<T, S>, u32) {
        let n = N as u64;
        // `ticket % n < N`: the index is in bounds (the compiler sees it for any `N`).
        let slot = &self.slots[(ticket % n) as usize];
        // The round, wrapping: turns are compared for equality only.
        (slot, ((ticket / n) as u32).wrapping_mul(2))
    }

    /// Writes `value` into `slot` (whose turn is `turn`, free for this producer) and hands
    /// it to its consumer.
    #[inline(always)]
    fn fill(&self, slot: &Slot<T, S>, turn: u32, value: T) {
        // SAFETY: the turn is this producer's: no other thread reads or writes the value until
        // the release below publishes it.
        unsafe { slot.value.with_mut(|v| (*v).write(value)) };
        // Release: the write above is visible to the consumer that acquires `turn + 1`.
        slot.turn.store(turn.wrapping_add(1), Release);
    }

    /// Reads the value out of `slot` (whose turn is `full`, holding this consumer's value) and
    /// frees the slot for the next round's producer.
    #[inline(always)]
    fn empty(&self, slot: &Slot<T, S>, full: u32) -> T {
        // SAFETY: the turn is this consumer's: the producer initialized the value and released
        // it, and no other thread touches it until the release below.
        let value = unsafe { slot.value.with(|v| (*v).assume_init_read()) };
        // Release: the read above happens before the next producer's write.
        slot.turn.store(full.wrapping_add(1), Release);
        value
    }

    /// [`try_push`](Self::try_push) without the debug check.
    #[inline(always)]
    fn try_push_now(&self, value: T) -> Result<(), T> {
        // Relaxed: the ticket is only a guess until the CAS takes it.
        let mut ticket = self.tail.load(Relaxed);
        loop {
            let (slot, turn) = self.slot(ticket);
            // Acquire: the previous round's consumer released the slot.
            if slot.turn.load(Acquire) == turn {
                match self
                    .tail
                    .compare_exchange(ticket, ticket.wrapping_add(1), Relaxed, Relaxed)
                {
                    Ok(_) => {
                        self.fill(slot, turn, value);
                        return Ok(());
                    }
                    // Another producer took it: try the ticket after it.
                    Err(now) => ticket = now,
                }
            } else {
                // Full, unless the ticket moved on meanwhile (its turn was already taken).
                let now = self.tail.load(Relaxed);
                if now == ticket {
                    return Err(value);
                }
                ticket = now;
            }
        }
    }

    /// [`try_pop`](Self::try_pop) without the debug check.
    #[inline(always)]
    fn try_pop_now(&self) -> Option<T> {
        let mut ticket = self.head.load(Relaxed);
        loop {
            let (slot, turn) = self.slot(ticket);
            let full = turn.wrapping_add(1);
            // Acquire: this round's producer released the value.
            if slot.turn.load(Acquire) == full {
                match self
                    .head
                    .compare_exchange(ticket, ticket.wrapping_add(1), Relaxed, Relaxed)
                {
                    Ok(_) => return Some(self.empty(slot, full)),
                    Err(now) => ticket = now,
                }
            } else {
                let now = self.head.load(Relaxed);
                if now == ticket {
                    return None;
                }
                ticket = now;
            }
        }
    }

    /// One attempt of a timed push: the value stays in `held` when it fails.
    #[inline(always)]
    fn push_attempt(&self, held: &mut Option<T>) -> Option<()> {
        let value = held.take()?;
        match self.try_push_now(value) {
            Ok(()) => Some(()),
            Err(value) => {
                *held = Some(value);
                None
            }
        }
    }
}

impl<T, const N: usize, S: Scope, B: Backoff> Default for Queue<T, N, S, B> {
    fn default() -> Self {
        Self::new()
    }
}

/// Drops the values still in the queue (those pushed and not popped).
impl<T, const N: usize, S: Scope, B: Backoff> Drop for Queue<T, N, S, B> {
    fn drop(&mut self) {
        if !core::mem::needs_drop::<T>() {
            return;
        }
        let (head, tail) = (self.head.load(Relaxed), self.tail.load(Relaxed));
        let mut ticket = head;
        while ticket != tail {
            let (slot, turn) = self.slot(ticket);
            if slot.turn.load(Relaxed) == turn.wrapping_add(1) {
                // SAFETY: `&mut self`: no thread is using the queue; the odd turn says the
                // value is initialized and not taken.
                unsafe { slot.value.with_mut(|v| (*v).assume_init_drop()) };
            }
            ticket = ticket.wrapping_add(1);
        }
    }
}
