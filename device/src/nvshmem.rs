//! NVSHMEM's device API (feature `nvshmem`): one-sided puts and gets, signals, waits, remote
//! atomics and barriers between the GPUs of a job, each GPU a *PE* (processing element) with
//! its copy of the *symmetric heap*.
//!
//! Bindings for NVSHMEM [`VERSION`] (3.4.5). Types exist on every target, so host code can
//! name them (a [`Symmetric<T>`] is a kernel parameter); the functions exist only in the
//! nvptx build. Each is an `#[inline(always)]` call of one exported function of NVSHMEM's
//! device library: an `extern "C"` declaration that stays a `.extern .func` in the PTX until
//! the kernel crate is linked with `-C link-arg=<nvshmem>/lib/libnvshmem_device.bc` (rustc's
//! bitcode linker then pulls in only the functions the kernels use). `ptx_sync_build`'s
//! `PtxBuilder::nvshmem(true)` adds that flag. The host must register the loaded module with
//! `nvshmemx_cumodule_init` before the first launch (it fills NVSHMEM's device state);
//! `ptx_sync_host::nvshmem` does that. Without it every call here reads an uninitialized state.
//!
//! | Module | Functions | NVSHMEM symbols |
//! |--------|-----------|-----------------|
//! | [`symmetric`] | [`Symmetric<T>`]: `from_ptr`, `as_ptr`, `add`, [`ptr(pe)`](Symmetric::ptr) | `nvshmem_ptr` |
//! | this module | [`my_pe`], [`n_pes`] | `nvshmem_my_pe`, `nvshmem_n_pes` |
//! | [`team`] | [`Team`]: `WORLD`, `SHARED`, `NODE`, `my_pe`, `n_pes` | `nvshmem_team_my_pe`, `nvshmem_team_n_pes` |
//! | [`rma`] | [`put`], [`put_nbi`], [`get`], [`get_nbi`], [`p`], [`g`] and `_warp` / `_block` forms | `nvshmem_<T>_put`, ..., `nvshmemx_<T>_put_warp`, ... |
//! | [`signal`] | [`put_signal`], [`put_signal_nbi`] (and `_warp` / `_block`), [`signal_op`], [`signal_wait_until`], [`signal_fetch`] | `nvshmem_<T>_put_signal`, `nvshmemx_signal_op`, `nvshmem_signal_wait_until`, `nvshmem_signal_fetch` |
//! | [`wait`] | [`wait_until`], [`wait_until_all`], [`wait_until_any`], [`wait_until_some`], [`test`](fn@test) | `nvshmem_<T>_wait_until`, ... |
//! | [`ordering`] | [`fence`], [`quiet`] | `nvshmem_fence`, `nvshmem_quiet` |
//! | [`collective`] | [`barrier_all`], [`sync_all`], [`barrier`], [`team_sync`] (and `_warp` / `_block`) | `nvshmem_barrier_all`, `nvshmem_sync_all`, ... |
//! | [`atomic`] | [`atomic_fetch`], [`atomic_set`], [`atomic_swap`], [`atomic_compare_swap`], [`atomic_fetch_add`], [`atomic_add`], [`atomic_fetch_inc`], [`atomic_inc`], `atomic_fetch_and/or/xor`, `atomic_and/or/xor` | `nvshmem_<T>_atomic_*` |
//!
//! `<T>` is NVSHMEM's fixed-width type name (`uint64`, `int32`, `float`, ...): one generic
//! function per operation, the symbol picked per type by the sealed traits [`Element`],
//! [`AtomicElement`] and [`WaitElement`], whose docs list the names.
//!
//! # What NVSHMEM guarantees, in PTX memory-model words
//!
//! - A put (`put`, `p`, the signal of `put_signal`) is a write by the calling thread to the
//!   target PE's copy; a blocking put returns when its source may be reused, not when the
//!   data has arrived. [`fence`] orders the calling thread's puts, remote atomics and signals
//!   to each one PE (a later one is not observed there before an earlier one); [`quiet`]
//!   completes all of them: when it returns they are performed at their targets.
//! - `put_signal` updates the signal only after the data is delivered: a thread that observes
//!   the new signal value ([`signal_wait_until`], [`wait_until`]) then reads the data.
//!   `signal_wait_until` and `wait_until` return after an observation that synchronizes with
//!   the signal's writer, so what the writer delivered before the signal is visible to the
//!   waiting thread (to the rest of its block after a `bar.sync`).
//! - The remote atomics are atomic with respect to other NVSHMEM atomics on the same object and
//!   order nothing else (relaxed); use [`fence`] / [`quiet`] to order them with puts.
//!
//! # Interop with the rest of the crate
//!
//! Within one node, [`Symmetric::ptr`] gives a plain pointer into a peer GPU's copy (over
//! NVLink or PCIe peer-to-peer). Memory reached that way can carry this crate's
//! [`Atomic<_, Sys>`](crate::atomic::Atomic), [`Latch<Sys>`](crate::latch::Latch),
//! [`Barrier<Sys>`](crate::barrier::Barrier), [`BinarySemaphore<Sys>`](crate::semaphore::BinarySemaphore) and
//! [`Mutex<_, Sys>`](crate::mutex::Mutex) across the GPUs of the node: `.sys` scope covers every GPU
//! and the host, and loads and stores are valid over peer-to-peer; read-modify-writes need
//! native peer atomics (NVLink, or a PCIe topology that reports them). Across nodes
//! `ptr` is `None`: signals and the remote atomics here are the path.
//!
//! # Example: a ring
//!
//! Each PE sends a block of words to the next PE and waits for its own from the previous one.
//! `data`, `signal` and `out` come from the host (`signal` zeroed, `data` as long as `src`).
//!
//! ```ignore
//! #![no_std]
//! #![feature(abi_ptx)]
//! use ptx_sync::nvshmem::{self, Cmp, SignalOp, Symmetric};
//! # #[panic_handler]
//! # fn panic(info: &core::panic::PanicInfo) -> ! {
//! #     ptx_sync::report_panic(info)
//! # }
//!
//! #[unsafe(no_mangle)]
//! pub unsafe extern "ptx-kernel" fn ring(
//!     data: Symmetric<u64>,
//!     signal: Symmetric<u64>,
//!     src: *const u64,
//!     out: *mut u64,
//!     len: usize,
//! ) {
//!     let (me, n) = (nvshmem::my_pe(), nvshmem::n_pes());
//!     let next = (me + 1) % n;
//!     unsafe {
//!         // One thread: the data to `next`'s copy of `data`, then `signal` set to 1 there,
//!         // observed only after the data (nvshmem_uint64_put_signal).
//!         nvshmem::put_signal(data, src, len, signal, 1, SignalOp::Set, next);
//!         // The previous PE's put into our copy: wait for its signal, then the data is
//!         // visible to this thread (nvshmem_signal_wait_until).
//!         nvshmem::signal_wait_until(signal, Cmp::Eq, 1);
//!         core::ptr::copy_nonoverlapping(data.as_ptr(), out, len);
//!     }
//! }
//! ```

/// Items of the nvptx build alone: NVSHMEM's device library links into kernels only, so a host
/// caller of these gets an unresolved name, never a link error.
macro_rules! gpu_only {
    ($($item:item)*) => {
        crate::backend::cfg_gpu! { $($item)* }
    };
}

pub mod atomic;
pub mod collective;
pub mod ordering;
pub mod rma;
pub mod signal;
pub mod symmetric;
pub mod team;
pub mod wait;

pub use atomic::AtomicElement;
pub use rma::Element;
pub use signal::SignalOp;
pub use symmetric::Symmetric;
pub use team::Team;
pub use wait::{Cmp, WaitElement};

gpu_only! {
    pub use atomic::{
        atomic_add, atomic_and, atomic_compare_swap, atomic_fetch, atomic_fetch_add,
        atomic_fetch_and, atomic_fetch_inc, atomic_fetch_or, atomic_fetch_xor, atomic_inc,
        atomic_or, atomic_set, atomic_swap, atomic_xor,
    };
    pub use collective::{
        barrier, barrier_all, barrier_all_block, barrier_all_warp, barrier_block, barrier_warp,
        sync_all, sync_all_block, sync_all_warp, team_sync, team_sync_block, team_sync_warp,
    };
    pub use ordering::{fence, quiet};
    pub use rma::{
        g, get, get_block, get_nbi, get_nbi_block, get_nbi_warp, get_warp, p, put, put_block,
        put_nbi, put_nbi_block, put_nbi_warp, put_warp,
    };
    pub use signal::{
        put_signal, put_signal_block, put_signal_nbi, put_signal_nbi_block, put_signal_nbi_warp,
        put_signal_warp, signal_fetch, signal_op, signal_wait_until,
    };
    pub use wait::{test, wait_until, wait_until_all, wait_until_any, wait_until_some};
}

/// The NVSHMEM release these bindings were written for and checked against (its headers'
/// `NVSHMEM_VENDOR_{MAJOR,MINOR,PATCH}_VERSION`): the library linked into the kernels
/// should have the same major.minor.
pub const VERSION: (u32, u32, u32) = (3, 4, 5);

gpu_only! {
    /// A PE number as NVSHMEM's `int pe` parameter. The callers promise `pe < n_pes()`, so the
    /// value fits.
    #[inline(always)]
    fn c_pe(pe: u32) -> core::ffi::c_int {
        pe as core::ffi::c_int
    }

    /// This PE's number in the world team, `0..n_pes()`. Calls `nvshmem_my_pe`.
    ///
    /// NVSHMEM reads it from its device state, which the host fills when it registers the
    /// module (`nvshmemx_cumodule_init`); before that the value is meaningless.
    #[inline(always)]
    pub fn my_pe() -> u32 {
        extern "C" {
            fn nvshmem_my_pe() -> core::ffi::c_int;
        }
        // SAFETY: no arguments; it reads NVSHMEM's device state.
        unsafe { nvshmem_my_pe() as u32 }
    }

    /// The number of PEs in the job (the world team). Calls `nvshmem_n_pes`.
    #[inline(always)]
    pub fn n_pes() -> u32 {
        extern "C" {
            fn nvshmem_n_pes() -> core::ffi::c_int;
        }
        // SAFETY: no arguments; it reads NVSHMEM's device state.
        unsafe { nvshmem_n_pes() as u32 }
    }
}
