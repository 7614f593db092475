//! # ptx-sync
//!
//! Synchronization for GPU kernels written in Rust and compiled by rustc's own
//! `nvptx64-nvidia-cuda` target: scoped atomics, fences, volatile and MMIO access, and the
//! primitives built on them (locks, semaphores, latches, block, grid and cluster barriers), as
//! `#[inline(always)]` PTX `asm!` that follows the PTX memory model: what libcu++
//! (`cuda::atomic_ref`, `cuda::atomic_thread_fence`, `cuda::latch`, `cuda::barrier`,
//! `cuda::counting_semaphore`) and cooperative groups give CUDA C++.
//!
//! The crate is `no_std`, depends on `core` only, and has two backends with one API: PTX `asm!`
//! when compiled for `nvptx64-nvidia-cuda`, and `core::sync::atomic` on any other target, so
//! algorithms written against it run in ordinary host tests (and loom) too. Items marked "GPU
//! only" exist only in the nvptx build, which docs.rs documents; to open those docs locally,
//! from your kernel crate:
//!
//! ```text
//! RUSTC_BOOTSTRAP=1 RUSTFLAGS="-C target-cpu=sm_90 -C target-feature=+ptx84" RUSTDOCFLAGS="-C target-cpu=sm_90 -C target-feature=+ptx84" cargo doc -p ptx-sync --no-deps --target nvptx64-nvidia-cuda -Zbuild-std=core --open
//! ```
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
//!
//! ## A kernel
//!
//! Every block adds its inputs, the last block to finish publishes the sum (the kernel of the
//! README's quick start, which also shows its `Cargo.toml`, the `build.rs` that builds it with
//! `ptx-sync-build` and the host program that launches it with `ptx-sync-host`):
//!
//! ```ignore
//! #![no_std]
//! #![feature(abi_ptx, stdarch_nvptx)]
//!
//! use core::arch::nvptx::{_block_dim_x, _block_idx_x, _thread_idx_x};
//! use ptx_sync::{Atomic, Gpu, Ordering::*};
//!
//! #[panic_handler]
//! fn panic(info: &core::panic::PanicInfo) -> ! {
//!     // Prints "panicked at file:line:col: message" on the GPU, then traps: the host sees the
//!     // launch fail and the message on its stdout.
//!     ptx_sync::report_panic(info)
//! }
//!
//! /// Sums `input` into `*total`; the last block to finish publishes the complete sum.
//! ///
//! /// Why it is correct: `barrier.sync` orders each block's `red.relaxed` adds before its thread 0
//! /// increments `finished` with `atom.acq_rel.gpu`. Those increments form one chain of RMWs, so
//! /// the last one (the block that reads `blocks - 1`) acquires every earlier block's release and
//! /// with it every add: its relaxed load of `total` sees the complete sum.
//! ///
//! /// # Safety
//! /// `input` holds `n` values; `total`, `finished` and `result` are zeroed `u32`s.
//! #[unsafe(no_mangle)]
//! pub unsafe extern "ptx-kernel" fn sum_then_publish(
//!     input: *const u32,
//!     n: u32,
//!     total: *mut u32,
//!     finished: *mut u32,
//!     result: *mut u32,
//! ) {
//!     // Edition 2024: the unsafe operations of an `unsafe fn` need their own `unsafe` block.
//!     unsafe {
//!         let i = _block_idx_x() * _block_dim_x() + _thread_idx_x();
//!         let total = Atomic::<u32, Gpu>::from_ptr(total);
//!         if (i as u32) < n {
//!             total.red_add(*input.add(i as usize), Relaxed); // red.relaxed.gpu.add.u32
//!         }
//!         ptx_sync::block::sync(); // barrier.sync 0: the block's adds are done
//!         if _thread_idx_x() == 0 {
//!             let blocks = core::arch::nvptx::_grid_dim_x() as u32;
//!             // atom.acq_rel.gpu.add.u32: releases this block's adds, acquires the earlier blocks'.
//!             let before = Atomic::<u32, Gpu>::from_ptr(finished).fetch_add(1, AcqRel);
//!             if before == blocks - 1 {
//!                 *result = total.load(Relaxed); // ld.relaxed.gpu.b32: every add is visible
//!             }
//!         }
//!     }
//! }
//! ```
//!
//! ## Building kernels
//!
//! Kernels need sm_70 or newer and PTX ISA 8.4 (`.b128` atomics at `.sys` scope need 8.4,
//! `ld/st.mmio` 8.2), and `core` built from source (there is no prebuilt nvptx `rust-std`).
//! `ptx_sync_build::PtxBuilder` (crate `ptx-sync-build`) does this from a host crate's
//! `build.rs`; by hand:
//!
//! ```text
//! RUSTC_BOOTSTRAP=1 RUSTFLAGS="-C target-cpu=sm_90 -C target-feature=+ptx84" \
//!     cargo build --release --target nvptx64-nvidia-cuda -Zbuild-std=core
//! ```
//!
//! Without `-C target-cpu=sm_70` (or newer) or without `-C target-feature=+ptx84`, this crate
//! stops the build with a `compile_error!` that names the flag, instead of emitting PTX that
//! ptxas or the driver refuses later. Running the PTX needs a CUDA 12.4+ driver. `sm_80` adds
//! `BlockBarrier`, `sm_90` adds `AtomicU128`, the `cluster` and `bulk` modules and the
//! [`Cluster`] scope.
//!
//! ## Map of the crate
//!
//! Each module's page has a table of its items, the PTX they emit and their CUDA C++
//! counterparts; the exact instruction(s) of every operation x order x scope x type are in
//! [`device/PTX_TABLE.md`](https://github.com/ptx-sync/ptx-sync/blob/main/device/PTX_TABLE.md)
//! (generated from the golden tests: search it for an instruction a profiler shows).
//!
//! | module | what it holds | CUDA C++ |
//! |--------|---------------|----------|
//! | [`atomic`] | [`Atomic<T, S>`](Atomic) for integers, floats, halves, `bool`, pointers; state-space atomics; `wait` / `notify` | `cuda::atomic_ref`, `atomicAdd`... |
//! | [`fence`](mod@fence) | [`fence::<S>(order)`](fence()), [`compiler_fence`] | `cuda::atomic_thread_fence`, `__threadfence()` |
//! | [`flag`] | [`AtomicFlag`] | `cuda::atomic_flag` |
//! | [`mutex`], [`ticket`] | [`Mutex`] and [`SpinLock`] (warp-aggregated), [`TicketLock`] (FIFO) | a hand-written `atomicCAS` lock |
//! | [`rwlock`] | [`RwLock`]: many readers or one writer, phase-fair, warp-aggregated | none in libcu++ (a hand-written reader-writer lock) |
//! | [`queue`] | [`Queue`]: bounded MPMC ring with a turn word per slot, any capacity, warp-aggregated tickets | none in libcu++ (a hand-written ring) |
//! | [`semaphore`], [`binary_semaphore`] | [`Semaphore`], [`BinarySemaphore`] | `cuda::counting_semaphore`, `cuda::binary_semaphore` |
//! | [`latch`] | [`Latch`] | `cuda::latch` |
//! | [`barrier`] | [`Barrier`] (any scope, any memory, completion step) | `cuda::barrier` |
//! | `block_barrier` (sm_80, GPU only) | `BlockBarrier` (the hardware `mbarrier`) | `cuda::barrier<thread_scope_block>` |
//! | `grid` (GPU only) | `GridBarrier` (cooperative launch) | `this_grid().sync()` |
//! | `cluster` (sm_90, GPU only) | cluster barrier and ranks, distributed shared memory | `this_cluster()` |
//! | `bulk` (sm_90, GPU only) | bulk copies that complete on a `BlockBarrier` | `cuda::memcpy_async` |
//! | [`index`] | thread, block and grid indices and sizes (x, y, z), ranks, the grid-stride loop, warps in the block; `index::run_grid` (feature `warp-emulation`, host only): a whole launch as `std` threads, so kernels run in `cargo test` ([kernels you can test on the host](index#kernels-you-can-test-on-the-host)) | `threadIdx`, `blockIdx`, `blockDim`, `gridDim`, `<<<grid, block>>>` |
//! | [`block`] | [`block::sync`] (on the host under `run_grid` too) and the faster `unsafe` [`block::sync_aligned`] for converged warps, the indices under their short names, dynamic shared memory (GPU only) | `__syncthreads()`, `extern __shared__` |
//! | [`warp`] | votes, shuffles, `match`, `sync`, leaders; `warp::emulation` (feature `warp-emulation`, host only): real warps of `std` threads for tests | `__shfl_sync`, `__ballot_sync`... |
//! | [`shared`](mod@shared), [`shared_static`] | [`shared!`] statics, `.shared` pointers | `__shared__` |
//! | [`volatile`] | volatile and MMIO loads and stores | `volatile`, `ld.mmio` |
//! | [`print`] | [`gpu_println!`], [`gpu_print!`]: `{}` formatting checked at compile time, over `vprintf` | `printf` |
//! | [`wait`], [`clock`] | waiting policies, timed waits, `%globaltimer` | `__nanosleep`, `cuda::std::chrono` |
//! | [`scope`] | [`Cta`], [`Cluster`], [`Gpu`], [`Sys`] | `cuda::thread_scope_*` |
//! | [`float16`] | [`F16`], [`Bf16`] and their pairs | `__half`, `__nv_bfloat16` |
//! | `nvshmem` (feature `nvshmem`) | NVSHMEM's device API: symmetric memory, signals, remote atomics | `nvshmem.h` |
//!
//! Every primitive lives in shared or global (or mapped host) memory, never in a kernel's
//! local variable (`.local` memory, where atomics are undefined; debug builds trap there):
//! `new` for a `static` or shared memory, `from_ptr` for memory the host allocated (zeroed
//! memory is an unlocked lock, an empty semaphore or queue, an open latch, a fresh grid
//! barrier). [`Mutex`], [`RwLock`], [`Queue`], [`Latch`] and [`Barrier`] aggregate the lanes of
//! a warp per object: lanes that use different locks, queues, latches or barriers at the same
//! time each act on their own.
//!
//! ## Coming from CUDA C++
//!
//! | CUDA C++ | ptx-sync |
//! |----------|----------|
//! | `__syncthreads()` | `block::sync()` (`barrier.sync 0`: the non-`.aligned` form, correct even where the lanes of a warp arrive apart), or `unsafe { block::sync_aligned() }` (`bar.sync 0`, as `__syncthreads()`: every warp converged at the call) |
//! | `__syncwarp(mask)`, `__syncwarp()` | [`warp::sync(mask)`](warp::sync), `warp::sync(u32::MAX)` |
//! | `__activemask()`, `__match_any_sync(mask, v)` | [`warp::active_mask()`](warp::active_mask), [`warp::match_any(mask, v)`](warp::match_any) |
//! | `__ballot_sync(mask, p)`, `__any_sync`, `__all_sync`, `__uni_sync` | [`warp::ballot(mask, p)`](warp::ballot), [`warp::any`], [`warp::all`], [`warp::uni`] |
//! | `__match_all_sync(mask, v, &pred)` | [`warp::match_all(mask, v)`](warp::match_all) (`match_all_u32` for 32-bit values): `Some(lanes)` where `pred` is true |
//! | `__shfl_sync(mask, v, src)`, `__shfl_up_sync`, `__shfl_down_sync`, `__shfl_xor_sync` (width 32) | [`warp::shfl_idx(mask, v, src)`](warp::shfl_idx), [`warp::shfl_up`], [`warp::shfl_down`], [`warp::shfl_xor`] |
//! | `__threadfence_block()` | `fence::<Cta>(SeqCst)`: `fence.sc.cta` |
//! | `__threadfence()` (CUDA: the same as `cuda::atomic_thread_fence(memory_order_seq_cst, thread_scope_device)`) | `fence::<Gpu>(SeqCst)`: `fence.sc.gpu`. A release or acquire pattern needs only `fence::<Gpu>(Release)` / `(Acquire)`: `fence.acq_rel.gpu` |
//! | `__threadfence_system()` | `fence::<Sys>(SeqCst)`: `fence.sc.sys` |
//! | `atomicAdd(p, v)` (relaxed, device scope) | `Atomic::<u32, Gpu>::from_ptr(p).fetch_add(v, Relaxed)`; `red_add(v, Relaxed)` when the old value is not needed |
//! | `atomicCAS(p, expected, v)` | `compare_exchange(expected, v, Relaxed, Relaxed)`: `Ok(old)` or `Err(old)` (`unwrap_or_else(identity)` is CUDA's return value) |
//! | `atomicExch(p, v)` | `swap(v, Relaxed)` |
//! | `atomicAdd_block(p, v)`, `atomicAdd_system(p, v)` | `Atomic::<u32, Cta>::from_ptr(p).fetch_add(v, Relaxed)`, `Atomic::<u32, Sys>::from_ptr(p).fetch_add(v, Relaxed)` |
//! | `cuda::atomic_ref<T, cuda::thread_scope_device> a(*p)` | `let a = unsafe { Atomic::<T, Gpu>::from_ptr(p) };` with an explicit order on every call (libcu++'s default, `memory_order_seq_cst`, is `SeqCst`) |
//! | `cuda::latch<cuda::thread_scope_device>` | [`Latch<Gpu>`](Latch) |
//! | `cuda::barrier<cuda::thread_scope_block>` | `BlockBarrier` (hardware `mbarrier`, sm_80, shared memory) or [`Barrier<Cta>`](Barrier) (any memory, completion step) |
//! | `cuda::barrier<cuda::thread_scope_device>` | [`Barrier<Gpu>`](Barrier) |
//! | `cuda::counting_semaphore<cuda::thread_scope_device, N>`, `cuda::binary_semaphore<cuda::thread_scope_device>` | [`Semaphore<Gpu, N>`](Semaphore), [`BinarySemaphore<Gpu>`](BinarySemaphore) |
//! | `cooperative_groups::this_grid().sync()` | `GridBarrier::from_ptr(word).sync()` on a zeroed `u32`, in a cooperative launch |
//! | `cooperative_groups::this_cluster().sync()` (`cluster.sync()`) | `cluster::sync()` |
//! | `cluster.map_shared_rank(p, rank)` | `cluster::map_shared(p, rank)` |
//! | `__nanosleep(ns)` | [`wait::sleep_ns(ns)`](wait::sleep_ns) |
//! | `__shared__ T x;` | `shared! { static X: T; }`: `X.shared()` (`.shared` address), `X.as_ptr()`, `unsafe { X.get() }` |
//! | `extern __shared__ char smem[];` | `block::dynamic_shared_memory()` (generic pointer), `shared::Shared::dynamic()` (`.shared` address: `ld/st.shared`) |
//! | `threadIdx.x`, `blockIdx.x`, `blockDim.x`, `gridDim.x` | [`index::thread_idx_x()`](index::thread_idx_x), [`index::block_idx_x()`](index::block_idx_x), [`index::block_dim_x()`](index::block_dim_x), [`index::grid_dim_x()`](index::grid_dim_x) (and `_y`, `_z`; also `block::thread_x()`, `block::index_x()`, `block::dim_x()`, `block::grid_x()`) |
//! | `blockIdx.x * blockDim.x + threadIdx.x`; `for (i = that; i < n; i += blockDim.x * gridDim.x)` | [`index::global_thread_x()`](index::global_thread_x); `for i in index::grid_stride(n)` (over the whole grid, any shape) |
//! | a launch `<<<grid, block>>>` in a host test | `index::run_grid(grid, block, \|\| body())` (feature `warp-emulation`): see [kernels you can test on the host](index#kernels-you-can-test-on-the-host) |
#![no_std]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(asm_experimental_arch),
    // `block::sync_aligned`: core's `_syncthreads`, a call of LLVM's convergent barrier
    // intrinsic.
    feature(stdarch_nvptx),
    // `shared!` expands `global_asm!`/`asm!` in the user's crate, which then needs no
    // `asm_experimental_arch` of its own (device/src/shared_static.rs).
    feature(allow_internal_unstable),
    allow(internal_features),
    // `check!` in `const fn`s (`Semaphore::new`, `Barrier::new`): a panic at compile time, the
    // message and `trap` at run time (`const_eval_select`; see `check!`).
    feature(core_intrinsics, const_eval_select)
)]
// docs.rs (nightly, `--cfg docsrs`): mark each item with the target and arch it needs.
#![cfg_attr(docsrs, feature(doc_cfg), doc(auto_cfg(hide(loom))))]
#![warn(missing_docs, missing_debug_implementations)]

/// A check of the library that stays in release builds: on the host an `assert!` (the same
/// panic message); on the GPU, when it fails, the message is printed with `vprintf` and the
/// thread traps ([`check_failed`]), whatever the kernel's panic handler does (a handler that
/// only traps would hide the message). In a `const fn` evaluated at compile time it is a
/// compile-time panic. `$msg` is a string literal (or `concat!`/`stringify!` of them), without
/// the `ptx-sync: ` prefix and newline the GPU adds.
macro_rules! check {
    ($cond:expr, $msg:expr $(,)?) => {
        $crate::backend::check::check!($cond, $msg)
    };
}

/// [`check!`] in debug builds only (`debug_assert!` on the host); release builds emit nothing.
macro_rules! debug_check {
    ($cond:expr, $msg:expr $(,)?) => {
        if cfg!(debug_assertions) {
            check!($cond, $msg);
        }
    };
}

// Every `--cfg loom` switch of the crate, and its macros (`const_fn!`, `cfg_not_loom!`).
#[macro_use]
mod loom;

// The warp emulation is test support that needs threads (see `warp::emulation`).
cfg_warp_emulation! {
    extern crate std;
}
// Host docs show `warp::emulation` without the feature, so a user can read it before enabling it.
backend::cfg_host! {
    #[cfg(all(doc, not(feature = "warp-emulation"), not(loom)))]
    extern crate std;
}

pub mod atomic;
mod backend;
pub mod barrier;
pub mod binary_semaphore;
// The nvptx docs (docs.rs) have no host runner to link to.
backend::cfg_attr_gpu! {
    #[allow(rustdoc::broken_intra_doc_links)]
    pub mod block;
}
backend::cfg_gpu! {
    #[cfg(target_feature = "sm_80")]
    pub mod block_barrier;
}
backend::cfg_gpu! {
    #[cfg(target_feature = "sm_90")]
    pub mod bulk;
}
mod cache_padded;
pub mod clock;
mod debug;
backend::cfg_gpu! {
    #[cfg(target_feature = "sm_90")]
    pub mod cluster;
}
pub mod fence;
pub mod flag;
pub mod float16;
backend::cfg_gpu! {
    pub mod grid;
}
// The nvptx docs (docs.rs) have no host runner to link to.
backend::cfg_attr_gpu! {
    #[allow(rustdoc::broken_intra_doc_links)]
    pub mod index;
}
pub mod latch;
pub mod mutex;
// The functions exist only in the nvptx build, which is what docs.rs documents; a host build
// of the docs keeps the types and the text, and its links to the functions do not resolve.
backend::cfg_attr_host! {
    #[allow(rustdoc::broken_intra_doc_links, rustdoc::private_intra_doc_links)]
    #[cfg(feature = "nvshmem")]
    pub mod nvshmem;
}
mod order;
backend::cfg_gpu! {
    mod panic;
}
pub mod print;
pub mod queue;
pub mod rwlock;
pub mod scope;
pub mod semaphore;
pub mod shared;
pub mod shared_static;
pub mod ticket;
pub mod volatile;
pub mod wait;
pub mod warp;

// The re-exports stay in this order, the GPU-only ones included: the crate page lists them so.
backend::cfg_sm_90! {
    pub use atomic::space::ClusterShared;
}
pub use atomic::space::Global;
backend::cfg_sm_90_or_host! {
    pub use atomic::AtomicU128;
}
pub use atomic::{
    Atomic, AtomicBool, AtomicF32, AtomicF64, AtomicI32, AtomicI64, AtomicIsize, AtomicPtr,
    AtomicU32, AtomicU64, AtomicUsize, AtomicValue,
};
pub use atomic::{
    AtomicBf16, AtomicBf16x2, AtomicF16, AtomicF16x2, AtomicI16, AtomicI8, AtomicU16, AtomicU8,
};
pub use barrier::{Barrier, Token};
backend::cfg_gpu! {
    #[cfg(target_feature = "sm_80")]
    pub use block_barrier::{BlockBarrier, BlockToken};
}
pub use cache_padded::CachePadded;
pub use core::sync::atomic::Ordering;
pub use fence::{compiler_fence, fence};
pub use flag::AtomicFlag;
pub use float16::{Bf16, Bf16x2, F16x2, F16};
backend::cfg_gpu! {
    pub use grid::GridBarrier;
}
pub use latch::Latch;
pub use mutex::{Mutex, MutexGuard, SpinLock};
backend::cfg_gpu! {
    pub use panic::report_panic;
}
pub use queue::Queue;
pub use rwlock::{RwLock, RwLockReadGuard, RwLockWriteGuard};
backend::cfg_sm_90_or_host! {
    pub use scope::Cluster;
}
pub use scope::{Cta, Gpu, Scope, ScopeKind, Sys};
pub use semaphore::{BinarySemaphore, Semaphore};
pub use ticket::{TicketGuard, TicketLock};
pub use wait::{Backoff, Elapsed, NanoSleep, Spin, TimedOut};

/// A misuse that a debug build reports (`debug::trap`): on the GPU, `vprintf` the message and
/// `trap` (the launch fails with an illegal-instruction error and the message reaches the
/// host's stdout when the driver flushes the printf buffer); on the host, a panic with the
/// message.
#[cold]
#[inline(never)]
pub(crate) fn debug_trap(message: &'static core::ffi::CStr) -> ! {
    backend::check::debug_trap(message)
}

backend::cfg_gpu! {
    /// A failed [`check!`] on the GPU: `message` ends in `"\n\0"`.
    #[cold]
    #[inline(never)]
    pub(crate) fn check_failed(message: &'static str) -> ! {
        // SAFETY: `check!` passes a literal ending in a NUL; the messages hold no `%`.
        unsafe { backend::check::print_and_trap(message.as_ptr()) }
    }

    /// A failed [`check!`] in a `const fn` evaluated at compile time: a compile error with the
    /// host's message (without the `ptx-sync: ` prefix and the `"\n\0"` that `vprintf` needs).
    pub(crate) const fn check_failed_in_const(message: &'static str) -> ! {
        let bytes = message.as_bytes();
        let (_, text) = bytes.split_at("ptx-sync: ".len());
        let (text, _) = text.split_at(text.len() - "\n\0".len());
        match core::str::from_utf8(text) {
            Ok(text) => panic!("{}", text),
            Err(_) => panic!("{}", message),
        }
    }
}
