//! `BinarySemaphore<S, B>`: a semaphore of one unit (`cuda::binary_semaphore<Scope>`), with
//! its own algorithm: libcu++'s `__atomic_semaphore<Scope, 1>` shape
//! (cuda/std/__semaphore/atomic_semaphore.h in NVIDIA/cccl).
//!
//! One `u32` word at scope `S`: 1 = the unit is free, 0 = taken.
//!
//! - `acquire`: `atom.acquire.exch` of 0; the unit is this thread's when the exchange returns
//!   a 1. Otherwise wait: poll the word with `ld.relaxed` (pausing with `B`, by default
//!   [`Elapsed`](crate::wait::Elapsed): back-to-back polls for 40 us, then sleeps of a quarter of the time waited)
//!   until it reads 1, then exchange again. Waiters poll with loads, not RMWs
//!   (loads of one line are cheaper for the L2 to serve than RMWs, which it performs one at
//!   a time), and only the threads that saw the 1 exchange. `try_acquire`: one exchange.
//! - `release`: `st.release` of 1: a plain store, nothing to wait for (release builds). There
//!   is no count to add to: the word is either 0 or 1.
//!
//! Compared with the counting algorithm (`Semaphore<S, MAX>`, `MAX > 1`: load, CAS from `c` to
//! `c - 1`, release by `atom.add`), taking the unit needs no prior load to know what to
//! compare with, and giving it back is a store the releaser does not wait on.
//!
//! Why this is correct under the PTX memory model:
//! - Mutual exclusion: the unit exists only as a 1 in the word. A 1 is written only by a
//!   release (or the initial value), and taken only by an exchange that reads it and writes 0
//!   in the same atomic RMW, so two exchanges cannot both read one 1: after the first, the
//!   word's modification order holds its 0. An exchange that reads 0 writes 0 over 0 and
//!   changes nothing, so a loser never erases a unit.
//! - Publication: the exchange that returns 1 is an acquire pattern (`.acquire` on the RMW),
//!   and it reads the value written by the releasing `st.release` (a release pattern), which
//!   is morally strong with it (both atomic, same scope `S` covering both threads): the
//!   release synchronizes with the acquire (PTX ISA, "Memory Consistency Model": release and
//!   acquire patterns, synchronizes-with, causality order), so everything the releaser wrote
//!   before `release` (a critical section, a filled buffer) is visible to the new holder. The
//!   polling load is relaxed: it only decides when to try; the exchange that follows is the
//!   acquire. Neither operation needs more: the taker publishes nothing by taking, the
//!   releaser reads nothing by releasing (`AcqRel` would only add a fence).
//!
//! `Sys` scope: on a GPU without native host atomics (`hostNativeAtomicSupported == 0`, as on the
//! PCIe H100 measured), a GPU RMW on a word of host memory is not atomic with respect to the host's
//! accesses (DEVELOPMENT.md, Known limits: host and GPU RMWs on one word at the same time lose
//! updates), so a host store landing inside it may be overwritten. A GPU thread that exchanged
//! first would risk exactly that in a host/GPU ping-pong: its failing exchange writing 0 over the
//! host's releasing 1, a lost unit and a hang. So at `Sys` scope `acquire` and `try_acquire` load
//! first and exchange only after reading 1, as the counting algorithm does: the host has stored its
//! 1 and, in a protocol where one side releases and the other acquires, does not write the word
//! again before the unit comes back (`host/src/sys.rs` lists such protocols). A `Sys` semaphore is
//! rarely contended; the extra load costs little there.
//!
//! Warp aggregation: none, deliberately. [`Mutex`](crate::mutex::Mutex) hands its lock lane to lane
//! inside a warp (`warp::peers`, then `bar.warp.sync` turns) because a guard ties every
//! critical section to the lane that took the lock, and all grouped lanes leave together. A
//! semaphore has no owner: the unit is often released by another thread than the one that
//! took it (a producer releases what a consumer acquires, a ping-pong across blocks), so a
//! lane could not hand "its" unit to the next lane of its group, and lanes held back waiting
//! for their turn inside the warp could wait on a release that only they can cause. libcu++
//! does not aggregate its semaphores either. Use [`Mutex`](crate::mutex::Mutex) for a lock.
//!
//! ```
//! use ptx_sync::{Atomic, BinarySemaphore, Gpu, Ordering::Relaxed};
//!
//! // The unit as a lock around a read-modify-write that is not atomic by itself.
//! let unit: BinarySemaphore<Gpu> = BinarySemaphore::new(1);
//! let count = Atomic::<u32, Gpu>::new(0);
//! std::thread::scope(|s| {
//!     for _ in 0..4 {
//!         s.spawn(|| {
//!             for _ in 0..500 {
//!                 unit.acquire(); // atom.acquire.gpu.exch.b32 of 0 returned 1
//!                 let v = count.load(Relaxed);
//!                 count.store(v + 1, Relaxed);
//!                 unit.release(1); // st.release.gpu.b32 of 1 (an exchange in a debug build)
//!             }
//!         });
//!     }
//! });
//! assert_eq!(count.load(Relaxed), 2000);
//! ```
//!
//! ## PTX and CUDA C++
//!
//! | Item | PTX it emits | CUDA C++ / libcu++ |
//! |------|--------------|--------------------|
//! | [`BinarySemaphore<S, B>`](crate::semaphore::BinarySemaphore) (= `Semaphore<S, 1, B>`, libcu++'s own algorithm) | `atom.acquire.S.exch.b32` of 0 (acquire; `ld.relaxed` polls while taken), `st.release.S.b32` of 1 (release) | `cuda::binary_semaphore<Scope>` |

pub use crate::semaphore::BinarySemaphore;
