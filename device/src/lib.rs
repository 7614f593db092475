//! # ptx-sync
//!
//! Synchronization for GPU kernels written in Rust: scoped atomics, fences, volatile and MMIO
//! access, in PTX that follows the PTX memory model, the way libcu++ (`cuda::atomic_ref`,
//! `cuda::atomic_thread_fence`) gives them to CUDA C++.
//!
//! - [`Atomic<T, S>`]: an atomic `T` at scope `S` ([`Cta`], [`Cluster`], [`Gpu`], [`Sys`]);
//!   owned (`static`, shared memory) or over a kernel's raw pointer ([`Atomic::from_ptr`]).
//!   Orders are [`core::sync::atomic::Ordering`], re-exported as [`Ordering`].
//! - [`fence()`], [`compiler_fence`]: `fence.acq_rel` / `fence.sc` per scope.
//! - [`volatile`]: `ld/st.volatile` and `ld/st.mmio.relaxed.sys`.
//! - `block::sync()` (GPU only): a convergence-safe block barrier (`barrier.sync 0`).
//! - [`Mutex`] (and [`SpinLock`]): a warp-aggregated lock with an RAII guard, waiting with a
//!   [`Backoff`] policy ([`NanoSleep`] by default, [`Spin`]).
//!
//! The crate is `no_std`, depends on `core` only, and has two backends with one API: PTX
//! `asm!` when compiled for `nvptx64-nvidia-cuda`, and `core::sync::atomic` on any other
//! target, so algorithms written against it run in ordinary host tests too. The module
//! [`atomic`] has the table of the exact PTX each order emits.
//!
//! ```
//! use ptx_sync::{Atomic, Gpu, Ordering::*};
//!
//! // A flag and a payload, as one block would publish a result to another.
//! let data = Atomic::<u32, Gpu>::new(0);
//! let ready = Atomic::<u32, Gpu>::new(0);
//! data.store(42, Relaxed);
//! ready.store(1, Release); // st.release.gpu.b32
//! if ready.load(Acquire) == 1 {  // ld.acquire.gpu.b32
//!     assert_eq!(data.load(Relaxed), 42);
//! }
//! ```
#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(asm_experimental_arch))]
#![warn(missing_docs)]

// The warp emulation is test support that needs threads (see `warp::emulation`).
#[cfg(all(feature = "warp-emulation", not(target_arch = "nvptx64"), not(loom)))]
extern crate std;

/// A `const fn`, except under `--cfg loom`, whose atomics cannot be built in a const context.
macro_rules! const_fn {
    ($(#[$m:meta])* $vis:vis fn $($rest:tt)*) => {
        #[cfg(not(loom))]
        $(#[$m])* $vis const fn $($rest)*
        #[cfg(loom)]
        $(#[$m])* $vis fn $($rest)*
    };
}

// `with_scope!` (used by `fence` and `atomic`) comes first: macro_rules are textually scoped.
#[cfg(target_arch = "nvptx64")]
#[macro_use]
#[path = "atomic/ptx.rs"]
mod ptx;

pub mod atomic;
pub mod barrier;
#[cfg(target_arch = "nvptx64")]
pub mod block;
#[cfg(all(target_arch = "nvptx64", target_feature = "sm_80"))]
pub mod block_barrier;
mod cache_padded;
#[cfg(all(target_arch = "nvptx64", target_feature = "sm_90"))]
pub mod cluster;
pub mod fence;
#[cfg(target_arch = "nvptx64")]
pub mod grid;
pub mod latch;
pub mod mutex;
mod order;
pub mod scope;
pub mod semaphore;
pub mod ticket;
pub mod volatile;
pub mod wait;
pub mod warp;

#[cfg(all(target_arch = "nvptx64", target_feature = "sm_90"))]
pub use atomic::AtomicU128;
pub use atomic::{
    Atomic, AtomicF32, AtomicF64, AtomicI32, AtomicI64, AtomicU32, AtomicU64, AtomicValue,
};
pub use barrier::{Barrier, Token};
#[cfg(all(target_arch = "nvptx64", target_feature = "sm_80"))]
pub use block_barrier::{BlockBarrier, BlockToken};
pub use cache_padded::CachePadded;
pub use core::sync::atomic::Ordering;
pub use fence::{compiler_fence, fence};
#[cfg(target_arch = "nvptx64")]
pub use grid::GridBarrier;
pub use latch::Latch;
pub use mutex::{Mutex, MutexGuard, SpinLock};
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
pub use scope::Cluster;
pub use scope::{Cta, Gpu, Scope, ScopeKind, Sys};
pub use semaphore::{BinarySemaphore, Semaphore};
pub use ticket::{TicketGuard, TicketLock};
pub use wait::{Backoff, NanoSleep, Spin, TimedOut};

/// A misuse that a debug build reports: on the GPU, `vprintf` the message and `trap` (the
/// launch fails with an illegal-instruction error and the message reaches the host's stdout
/// when the driver flushes the printf buffer); on the host, a panic with the message.
#[cold]
#[inline(never)]
pub(crate) fn debug_trap(message: &'static core::ffi::CStr) -> ! {
    #[cfg(target_arch = "nvptx64")]
    {
        extern "C" {
            // CUDA's device-side printf, provided by the driver's JIT (as for `printf` in C++).
            fn vprintf(format: *const u8, args: *const u8) -> i32;
        }
        // SAFETY: a NUL-terminated format without conversions; no arguments.
        unsafe {
            vprintf(message.as_ptr().cast(), core::ptr::null());
            core::arch::asm!("trap;", options(noreturn, nostack));
        }
    }
    #[cfg(not(target_arch = "nvptx64"))]
    panic!(
        "{}",
        message.to_str().unwrap_or("ptx-sync: misuse").trim_end()
    );
}

/// In a debug build on the GPU, traps with `message` when `object` is in local memory (a
/// kernel's local variable): the PTX ISA leaves atomics on `.local` addresses undefined, and
/// no other thread can reach a thread's local memory anyway. `isspacep.local` is one
/// instruction; release builds emit nothing. libcu++ guards the same case.
#[inline(always)]
pub(crate) fn debug_check_not_local<T: ?Sized>(object: &T, message: &'static core::ffi::CStr) {
    #[cfg(target_arch = "nvptx64")]
    if cfg!(debug_assertions) {
        let local: u32;
        // SAFETY: tests an address; reads no memory.
        unsafe {
            core::arch::asm!(
                "{{ .reg .pred %p; isspacep.local %p, {a}; selp.u32 {l}, 1, 0, %p; }}",
                a = in(reg64) object as *const T as *const () as u64,
                l = out(reg32) local,
                options(pure, nomem, nostack)
            )
        };
        if local != 0 {
            debug_trap(message);
        }
    }
    #[cfg(not(target_arch = "nvptx64"))]
    let _ = (object, message);
}
