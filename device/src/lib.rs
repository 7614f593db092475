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
//! only" below exist only in the nvptx build (docs.rs documents that build).
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
//! ## Building kernels
//!
//! Kernels need sm_70 or newer and PTX ISA 8.4 (`.b128` atomics at `.sys` scope need 8.4,
//! `ld/st.mmio` 8.2), and `core` built from source (there is no prebuilt nvptx `rust-std`):
//!
//! ```text
//! RUSTC_BOOTSTRAP=1 \
//! RUSTFLAGS="-C target-cpu=sm_90 -C target-feature=+ptx84 -Zmir-enable-passes=-JumpThreading" \
//!     cargo build --release --target nvptx64-nvidia-cuda -Zbuild-std=core
//! ```
//!
//! (`-Zmir-enable-passes=-JumpThreading` keeps rustc 1.95 from duplicating block barriers into
//! divergent branches, rust-lang/rust#137086), or, from the host crate's `build.rs`,
//! `ptx_sync_build::PtxBuilder` (crate `ptx-sync-build`), which sets these flags. Without `-C target-cpu=sm_70` (or newer) or without
//! `-C target-feature=+ptx84`, this crate stops the build with a `compile_error!` that names
//! the flag, instead of emitting PTX that ptxas or the driver refuses later. Running the PTX
//! needs a CUDA 12.4+ driver. `sm_80` adds `BlockBarrier`, `sm_90` adds `AtomicU128`, the
//! `cluster` module and the [`Cluster`] scope.
//!
//! ## What is in the crate
//!
//! `S` is a scope's PTX qualifier, `T` the instruction type, `B` a waiting policy. The exact
//! PTX of every order is in the [`atomic`] module's table, and the exact instruction(s) of every
//! operation x order x scope x type, one row per golden test case, are in
//! [`device/PTX_TABLE.md`](https://github.com/ptx-sync/ptx-sync/blob/main/device/PTX_TABLE.md)
//! (generated from the golden cases; the golden test fails when it is stale). Search it for an
//! instruction a profiler shows to find the call and the file that emit it.
//!
//! | Item | Source | PTX it emits | CUDA C++ / libcu++ |
//! |------|--------|--------------|--------------------|
//! | [`Atomic<T, S>`](Atomic) (`T`: [`AtomicValue`]; aliases [`AtomicU32`], [`AtomicI32`], [`AtomicU64`], [`AtomicI64`], [`AtomicUsize`], [`AtomicIsize`], [`AtomicF32`], [`AtomicF64`]): `new`, [`from_ptr`](Atomic::from_ptr), `load`, `store`, `swap`, `compare_exchange(_weak)`, `fetch_update`, `fetch_add/sub/and/or/xor/min/max`, `fetch_nand`, `fetch_inc/dec`, `red_*` | `device/src/atomic/` (`mod.rs`, `int.rs`, `float.rs`, `ptx.rs`) | `ld.relaxed.S` / `ld.acquire.S`, `st.relaxed.S` / `st.release.S`, `atom.<sem>.S.<op>.T`, `red.<sem>.S.<op>.T`; SeqCst: a leading `fence.sc.S`; `usize`/`isize` as `.b64`/`.u64`/`.s64`; `fetch_nand`: `ld.relaxed.S` then an `atom.<sem>.S.cas` loop | `cuda::atomic<T, Scope>`, `cuda::atomic_ref<T, Scope>`; `atomicAdd`, `atomicCAS`, `atomicExch`... (relaxed) |
//! | `Atomic<u8 i8 u16 i16 | F16 Bf16 F16x2 Bf16x2, S>` ([`AtomicU8`].. [`AtomicBf16x2`]; [`F16`], [`Bf16`], [`F16x2`], [`Bf16x2`] in [`float16`]), sm_90 vectors [`atomic::vector`] (`AtomicF32x2/x4`, `AtomicF16x4/x8`, `AtomicBf16x4/x8`, global memory); every type: `update`, `try_update`; floats: `fetch_min/max`, `fetch_update` | `device/src/atomic/small.rs`, `half.rs`, `vector.rs`, `device/src/float16.rs` | `ld/st.<sem>.S.b8/b16`, `atom.<sem>.S.cas.b16`, `atom/red.<sem>.S.add.noftz.f16/bf16/f16x2/bf16x2`, `atom/red.<sem>.S.add.v2/v4.f32` and `.add/min/max.noftz.v2/v4.f16x2/bf16x2`; other 8/16-bit RMWs and float min/max: `atom.<sem>.S.cas.b32` loops | `cuda::atomic_ref<char/short/__half/__nv_bfloat16>`, `atomicAdd(__half2*)`, sm_90 `atomicAdd(float2*/float4*)` |
//! | [`AtomicBool<S>`](AtomicBool) (4 bytes: a `u32` word of 0 or 1): `load`, `store`, `swap`, `compare_exchange(_weak)`, `fetch_update`, `fetch_and/or/xor/nand/not` | `device/src/atomic/boolean.rs` | the `.b32` forms: `ld`, `st`, `atom.<sem>.S.exch/cas/and/or/xor.b32`; `fetch_nand`: `xor` (with true) or `exch` (with false) | `cuda::atomic<bool, Scope>` |
//! | [`AtomicPtr<T, S>`](AtomicPtr): `load`, `store`, `swap`, `compare_exchange(_weak)`, `fetch_update` | `device/src/atomic/pointer.rs` | `ld.<sem>.S.b64`, `st.<sem>.S.b64`, `atom.<sem>.S.exch.b64`, `atom.<sem>.S.cas.b64` | `cuda::atomic<T*, Scope>` |
//! | [`AtomicFlag<S>`](AtomicFlag): `test_and_set`, `clear`, `test`, `wait`, `wait_for`, `wait_until`, `notify_one/all` | `device/src/flag.rs` | `atom.<sem>.S.exch.b32` of 1, `st.<sem>.S.b32` of 0, `ld.<sem>.S.b32`; waiting: `ld` polling with `nanosleep.u32` (timed: and `%globaltimer`) | `cuda::atomic_flag<Scope>` |
//! | `AtomicU128<S>` (sm_90, GPU only): `load`, `store`, `swap`, `compare_exchange` | `device/src/atomic/wide.rs` | `ld.<sem>.S.b128`, `st.<sem>.S.b128`, `atom.<sem>.S.exch.b128`, `atom.<sem>.S.cas.b128` | `cuda::atomic_ref` of a 16-byte type; 128-bit `atomicCAS` / `atomicExch` (sm_90) |
//! | `Atomic::wait`, `wait_until`, `wait_until_for`, `wait_until_deadline` (every `T`, floats comparing bits; `AtomicBool`, `AtomicPtr` too), `notify_one`, `notify_all` | `device/src/atomic/waiting.rs` | `ld.<sem>.S` polling with `nanosleep.u32`; `notify_*`: nothing (waiters poll) | `cuda::atomic_ref::wait`, `notify_one`, `notify_all` (no-ops on the device in libcu++ too) |
//! | [`shared!`](crate::shared!) (`static NAME: T;`), [`shared_static::SharedStatic`]: `shared`, `as_ptr`, `get`; [`shared::Shared<T>`](shared::Shared): `read`, `write`, `at`, `add`, `cast`, `from_generic`, `generic` | `device/src/shared_static.rs`, `device/src/shared.rs` | `.shared .align A .b8 ptx_sync_shared_NAME_<hash>[N];` (`global_asm!`), `mov.u32` of it, `ld/st.shared.bN`, `cvta.shared.u64`; on the host an ordinary static | `__shared__ T NAME;` |
//! | State-space atomics on [`Shared<Atomic<T, S>>`](shared::Shared), [`Global<Atomic<T, S>>`](Global) and `ClusterShared<Atomic<T, S>>` (sm_90, GPU only): `load`, `store`, `swap`, `compare_exchange(_weak)`, `fetch_add/sub/and/or/xor/min/max`, `red_add` | `device/src/atomic/space.rs` | `ld/st.<sem>.S.<space>.bN`, `atom.<sem>.S.<space>.<op>.T`, `red.<sem>.S.<space>.add.T`, `<space>` = `shared::cta`, `global`, `shared::cluster` (after `mapa.shared::cluster.u32`); SeqCst: a leading `fence.sc.S` | `atomicAdd(&shared_var, v)` (`atom.shared`), inline PTX |
//! | [`fence::<S>(order)`](fence()) | `device/src/fence.rs` | `fence.acq_rel.S` (Acquire, Release, AcqRel), `fence.sc.S` (SeqCst) | `cuda::atomic_thread_fence(order, scope)`; `__threadfence_block()`, `__threadfence()`, `__threadfence_system()` |
//! | [`compiler_fence(order)`](compiler_fence) | `device/src/fence.rs` | nothing (an empty `asm!`: a compiler barrier) | `cuda::atomic_signal_fence`, `asm volatile("" ::: "memory")` |
//! | [`volatile::read_volatile`], [`volatile::write_volatile`] ([`volatile::Word`]: `u32 i32 f32 u64 i64 f64`) | `device/src/volatile.rs` | `ld.volatile.bN`, `st.volatile.bN` | a `volatile` access |
//! | [`volatile::read_mmio`], [`volatile::write_mmio`] | `device/src/volatile.rs` | `ld.mmio.relaxed.sys.bN`, `st.mmio.relaxed.sys.bN` | inline PTX `ld.mmio` / `st.mmio` |
//! | [`Mutex<T, S, B>`](Mutex), [`MutexGuard`], [`SpinLock<S, B>`](SpinLock) (`Mutex<(), S, B>`): `lock`, `try_lock`, `try_lock_for`, `try_lock_until`, `from_ptr`, `DATA_OFFSET`, `data_ptr` | `device/src/mutex.rs` | `activemask.b32` + `match.any.sync.b64` (the lanes on the same mutex), `atom.acquire.S.cas.b32`, `ld.relaxed.S` polling with `nanosleep.u32`, `bar.warp.sync` (turns inside the warp), `st.release.S.b32` (unlock) | none in libcu++: a hand-written `atomicCAS` lock, or `cuda::binary_semaphore` used as one |
//! | [`TicketLock<T, S, B>`](TicketLock), [`TicketGuard`] (FIFO) | `device/src/ticket.rs` | `atom.relaxed.S.add.u32` (ticket), `ld.acquire.S` polling (turn), `st.release.S` (unlock) | none (libcu++ has no fair lock) |
//! | [`Semaphore<S, MAX, B>`](Semaphore): `acquire`, `try_acquire`, `try_acquire_for`, `try_acquire_until`, `release(n)` | `device/src/semaphore.rs` | `ld.relaxed.S` then `atom.acquire.S.cas.b32` (acquire), `red.release.S.add.u32` (release) | `cuda::counting_semaphore<Scope, MAX>` |
//! | [`BinarySemaphore<S, B>`](BinarySemaphore) (= `Semaphore<S, 1, B>`, libcu++'s own algorithm) | `device/src/binary_semaphore.rs` | `atom.acquire.S.exch.b32` of 0 (acquire; `ld.relaxed` polls while taken), `st.release.S.b32` of 1 (release) | `cuda::binary_semaphore<Scope>` |
//! | [`Latch<S, B>`](Latch): `count_down()`, `count_down_n(n)`, `try_wait`, `wait`, `wait_for`, `wait_until`, `arrive_and_wait` | `device/src/latch.rs` | `atom.release.S.add.u32` of `-1` / `-n`, `ld.acquire.S` polling; `arrive_and_wait` per warp: `match.any.sync.b64`, `bar.warp.sync` | `cuda::latch<Scope>` |
//! | [`Barrier<S, B, F>`](Barrier), [`Token`]: `arrive`, `arrive_n`, `wait`, `wait_for`, `wait_until`, `wait_parity(_for/_until)`, `arrive_and_wait(_with)`, `arrive_and_drop`; [`barrier::init_word`] (one `u64`, libcu++'s layout); `with_completion` ([`barrier::Completion`], stored after the word) | `device/src/barrier.rs` | `atom.acq_rel.S.add.u64` (arrive; the last arrival's carry flips the phase bit), `atom.relaxed.S.add.u64` (the last arrival restarts the counter), `ld.acquire.S.b64` polling; completion steps (stored or per call) and drop: `ld.acquire.S.b64`, `atom.acq_rel.S.cas.b64`; per warp `match.any.sync.b64`, `bar.warp.sync` | `cuda::barrier<Scope>`, `cuda::barrier<Scope, CompletionF>` |
//! | `BlockBarrier`, `BlockToken` (sm_80, GPU only, shared memory); `try_wait_parity`, `wait_parity`, `wait_for`, `wait_until`, `wait_parity_for`, `wait_parity_until` | `device/src/block_barrier.rs`, `block_barrier/timed.rs` | `mbarrier.init/arrive/arrive_drop/test_wait(.parity).shared.b64`; `mbarrier.try_wait(.parity)` on sm_90, timed: with the time left as its suspend-time hint, and `%globaltimer` | `cuda::barrier<cuda::thread_scope_block>` in shared memory |
//! | `BlockBarrier::{expect_tx, arrive_expect_tx, complete_tx}` (sm_90, GPU only) | `device/src/block_barrier/tx.rs` | `mbarrier.expect_tx.relaxed.cta.shared::cta.b64`, `mbarrier.arrive.expect_tx.release.cta.shared::cta.b64`, `mbarrier.complete_tx.relaxed.cta.shared::cta.b64` | `cuda::device::barrier_expect_tx`, `barrier_arrive_tx(bar, 1, bytes)` |
//! | `bulk::{copy_global_to_shared, fence_proxy_async_shared, fence_proxy_async}` (sm_90, GPU only) | `device/src/bulk.rs` | `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes`, `fence.proxy.async.shared::cta`, `fence.proxy.async` | `cuda::device::memcpy_async_tx`, `cuda::ptx::fence_proxy_async` |
//! | `GridBarrier<B>` (GPU only, cooperative launch): `from_ptr`, `sync` | `device/src/grid.rs` | `barrier.sync 0`, `atom.acq_rel.gpu.add.u32` (the completing block skips its poll), `ld.acquire.gpu` polling, `barrier.sync 0` | `cooperative_groups::this_grid().sync()` |
//! | `cluster::{sync, arrive, arrive_relaxed, wait, map_shared, block_rank, block_count, index_x}` (sm_90, GPU only) | `device/src/cluster.rs` | `barrier.cluster.arrive.release` / `.relaxed`, `barrier.cluster.wait.acquire`, `mapa.u64`, `%cluster_ctarank`, `%cluster_nctarank`, `%clusterid.x` | `cooperative_groups::this_cluster()`: `sync()`, `barrier_arrive()`, `barrier_wait()`, `map_shared_rank()`, `block_rank()`, `num_blocks()` |
//! | `block::{sync, dynamic_shared_memory, thread_rank, rank, count, thread_x/y/z, dim_x/y/z, index_x/y/z, grid_x/y/z}` (GPU only) | `device/src/block.rs` | `barrier.sync 0`, `cvta.shared.u64` of an `.extern .shared` array, `mov.u32` of `%tid`, `%ntid`, `%ctaid`, `%nctaid` | `__syncthreads()`, `extern __shared__`, `threadIdx`, `blockDim`, `blockIdx`, `gridDim` |
//! | [`warp`]`::{lane, active_mask, sync, match_any, peers}` | `device/src/warp.rs` | `%laneid`, `activemask.b32`, `bar.warp.sync`, `match.any.sync.b64` | lane id, `__activemask()`, `__syncwarp(mask)`, `__match_any_sync(mask, value)` |
//! | [`warp`]`::{ballot, any, all, uni, match_any_u32, match_all, match_all_u32, leader}` | `device/src/warp.rs` | `vote.sync.ballot.b32`, `vote.sync.{any,all,uni}.pred`, `match.any.sync.b32`, `match.all.sync.b64` / `.b32` (with its predicate: `Some(lanes)`), `%laneid` | `__ballot_sync`, `__any_sync`, `__all_sync`, `__uni_sync`, `__match_any_sync`, `__match_all_sync`, `lane == __ffs(mask) - 1` |
//! | [`warp`]`::{shfl_idx, shfl_up, shfl_down, shfl_xor}` (any [`warp::ShuffleValue`]: `u32 i32 f32`, and `u64 i64 f64` as two shuffles) | `device/src/warp.rs` | `shfl.sync.idx.b32 d, a, b, 0x1f, m`, `shfl.sync.up.b32 .., 0, m`, `shfl.sync.down.b32 .., 0x1f, m`, `shfl.sync.bfly.b32 .., 0x1f, m` | `__shfl_sync`, `__shfl_up_sync`, `__shfl_down_sync`, `__shfl_xor_sync` (width 32) |
//! | `warp::elect_one` (sm_90 on the GPU) | `device/src/warp.rs` | `elect.sync _\|p, m` | `cuda::ptx::elect_sync(mask)`, `cooperative_groups::invoke_one` |
//! | [`wait`]: [`Backoff`], [`NanoSleep<MIN, MAX>`](NanoSleep) (the default), [`Elapsed<POLLS, SPIN_NS, MAX_NS>`](Elapsed) (libcu++'s policy: polls for 40 us, then sleeps a quarter of the time waited; the semaphores' default), [`Spin`], [`TimedOut`], [`wait::poll_until`], [`wait::poll_until_for`], [`wait::poll_until_deadline`], [`wait::sleep_ns`], `wait::global_timer_ns` (GPU only) | `device/src/wait.rs` | `nanosleep.u32`, `%globaltimer` | `__nanosleep(ns)`, `%globaltimer` through `asm` |
//! | [`clock::Instant`]: `now`, `+ Duration`, `duration_since`, `elapsed`, `from_nanos`, `as_nanos`; [`clock::nanos`] (saturating `Duration` to ns) | `device/src/clock.rs` | `mov.u64 %rd, %globaltimer;` (the host: a virtual clock that timed waits advance) | `cuda::std::chrono::system_clock::now()` on the device, `%globaltimer` |
//! | [`CachePadded<T>`](CachePadded) | `device/src/cache_padded.rs` | nothing (`align(128)`: one L2 line) | `alignas(128)` |
//! | [`scope`]: [`Cta`], [`Cluster`] (sm_90), [`Gpu`], [`Sys`]; [`Scope`], [`ScopeKind`] | `device/src/scope.rs` | `.cta`, `.cluster`, `.gpu`, `.sys` | `cuda::thread_scope_block`, `thread_scope_cluster`, `thread_scope_device`, `thread_scope_system` |
//! | [`Ordering`] (`core::sync::atomic::Ordering`) | `device/src/order.rs` (its PTX `.sem`) | `.relaxed`, `.acquire`, `.release`, `.acq_rel`; SeqCst as `fence.sc` | `cuda::std::memory_order` |
//!
//! Every primitive lives in shared or global (or mapped host) memory, never in a kernel's
//! local variable (`.local` memory, where atomics are undefined; debug builds trap there):
//! `new` for a `static` or shared memory, `from_ptr` for memory the host allocated (zeroed
//! memory is an unlocked lock, an empty semaphore, an open latch, a fresh grid barrier).
//! [`Mutex`], [`Latch`] and [`Barrier`] aggregate the lanes of a warp per object: lanes that
//! use different locks, latches or barriers at the same time each act on their own.
//!
//! ## Coming from CUDA C++
//!
//! | CUDA C++ | ptx-sync |
//! |----------|----------|
//! | `__syncthreads()` | `block::sync()` (`barrier.sync 0`: the non-`.aligned` form, safe where rustc duplicates it into divergent branches) |
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
//! | `threadIdx.x`, `blockIdx.x`, `blockDim.x`, `gridDim.x` | `block::thread_x()`, `block::index_x()`, `block::dim_x()`, `block::grid_x()` |
//!
//! ## A kernel and its host side
//!
//! Counting keys in a hash table with one [`Mutex`] per bucket, in memory the host allocated
//! and zeroed (a zeroed `Mutex<u32, Gpu>` is unlocked and holds 0; it is 8 bytes: the lock
//! word, then the data at [`Mutex::DATA_OFFSET`]). The lanes of a warp lock different buckets
//! independently; lanes on the same bucket take turns inside the warp. This kernel is
//! `count_keys` in `examples/kernels/src/lib.rs`, which CI builds to PTX (with
//! `ptx-sync-build`) together with the host program in `examples/app`.
//!
//! ```ignore
//! // kernels/src/lib.rs: a `cdylib` built for nvptx64-nvidia-cuda (panic = "abort").
//! #![no_std]
//! #![feature(abi_ptx, stdarch_nvptx)]
//!
//! use ptx_sync::block::{dim_x, index_x, thread_x};
//! use ptx_sync::{Atomic, Gpu, Mutex, Ordering::*};
//!
//! #[panic_handler]
//! fn panic(info: &core::panic::PanicInfo) -> ! {
//!     ptx_sync::report_panic(info) // prints the message and location, then traps
//! }
//!
//! fn bucket_of(key: u32, bucket_bits: u32) -> u32 {
//!     key.wrapping_mul(0x9E37_79B9) >> (32 - bucket_bits)
//! }
//!
//! /// Counts `keys[0..n]`: bucket `b` is `locks[b]` (its data: the entries in use) and the
//! /// entries `table_keys/table_counts[b * slots..][..slots]`.
//! #[unsafe(no_mangle)]
//! pub unsafe extern "ptx-kernel" fn count_keys(
//!     keys: *const u32,
//!     n: u32,
//!     locks: *mut Mutex<u32, Gpu>,
//!     bucket_bits: u32,
//!     slots: u32,
//!     table_keys: *mut u32,
//!     table_counts: *mut u32,
//!     overflow: *mut u32,
//! ) {
//!     let i = index_x() * dim_x() + thread_x();
//!     if i >= n {
//!         return;
//!     }
//!     unsafe {
//!         let key = *keys.add(i as usize);
//!         let bucket = bucket_of(key, bucket_bits);
//!         // atom.cas.acquire.gpu (or a turn after another lane of the warp, bar.warp.sync)
//!         let mut used = Mutex::from_ptr(locks.add(bucket as usize)).lock();
//!         let base = (bucket * slots) as usize;
//!         match (0..*used as usize).find(|&j| *table_keys.add(base + j) == key) {
//!             Some(j) => *table_counts.add(base + j) += 1,
//!             None if *used < slots => {
//!                 *table_keys.add(base + *used as usize) = key;
//!                 *table_counts.add(base + *used as usize) = 1;
//!                 *used += 1;
//!             }
//!             None => Atomic::<u32, Gpu>::from_ptr(overflow).store(1, Relaxed),
//!         }
//!     } // the guard's drop: st.release.gpu, or the next lane's turn
//! }
//! ```
//!
//! The host side, with `ptx-sync-host` (and `ptx-sync-build` in `build.rs`):
//!
//! ```text
//! // build.rs: builds ../kernels to PTX (the sm_90 flags above) and sets KERNELS_PTX.
//! ptx_sync_build::PtxBuilder::new("../kernels").arch(ptx_sync_build::Arch::Sm90).build()?;
//!
//! // src/main.rs
//! use ptx_sync_host::{launch, Device};
//!
//! let gpu = Device::open(0)?;
//! let kernels = gpu.load_ptx_str("kernels.ptx", include_str!(env!("KERNELS_PTX")))?;
//! let (bucket_bits, slots) = (12u32, 8u32);
//! let buckets = 1usize << bucket_bits;
//! let n = keys.len() as u32;
//! let keys = gpu.upload(&keys)?;
//! // Zeroed: 4096 unlocked Mutex<u32, ptx_sync::Gpu>, two u32 words each.
//! let locks = gpu.zeros::<u32>(buckets * size_of::<ptx_sync::Mutex<u32, ptx_sync::Gpu>>() / 4)?;
//! let table_keys = gpu.zeros::<u32>(buckets * slots as usize)?;
//! let table_counts = gpu.zeros::<u32>(buckets * slots as usize)?;
//! let overflow = gpu.zeros::<u32>(1)?;
//! unsafe {
//!     launch!(kernels.count_keys<<<n.div_ceil(256), 256, 0, gpu>>>(
//!         &keys, n, &locks, bucket_bits, slots, &table_keys, &table_counts, &overflow
//!     ))
//! }?;
//! gpu.wait(std::time::Duration::from_secs(10))?; // a deadlock becomes an error, not a hang
//! assert_eq!(gpu.download(&overflow)?, [0]);
//! let counts = gpu.download(&table_counts)?;
//! ```
#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(asm_experimental_arch))]
// `shared!` expands `global_asm!`/`asm!` in the user's crate, which then needs no
// `asm_experimental_arch` of its own (device/src/shared_static.rs).
#![cfg_attr(target_arch = "nvptx64", feature(allow_internal_unstable))]
#![cfg_attr(target_arch = "nvptx64", allow(internal_features))]
// `check!` in `const fn`s (`Semaphore::new`, `Barrier::new`): a panic at compile time, the
// message and `trap` at run time (`const_eval_select`; see `check!`).
#![cfg_attr(target_arch = "nvptx64", feature(core_intrinsics, const_eval_select))]
// docs.rs (nightly, `--cfg docsrs`): mark each item with the target and arch it needs.
#![cfg_attr(docsrs, feature(doc_cfg), doc(auto_cfg(hide(loom))))]
#![warn(missing_docs, missing_debug_implementations)]

// The GPU build needs an architecture and a PTX ISA the crate's instructions exist in. Without
// `-C target-cpu`, rustc emits PTX for sm_30, which ptxas or the driver would refuse much
// later with an error about one instruction; say what to set instead.
#[cfg(all(target_arch = "nvptx64", not(target_feature = "sm_70")))]
compile_error!(
    "ptx-sync needs sm_70 or newer: build with -C target-cpu=sm_70 (or sm_75, sm_80, sm_90) \
     in RUSTFLAGS, e.g. RUSTFLAGS=\"-C target-cpu=sm_90 -C target-feature=+ptx84\" (without \
     it rustc targets sm_30, which has no .acquire/.release atomics, fence.sc, nanosleep or \
     match.any), or use ptx_sync_build::PtxBuilder, which sets it"
);
#[cfg(all(target_arch = "nvptx64", not(target_feature = "ptx84")))]
compile_error!(
    "ptx-sync needs PTX ISA 8.4: build with -C target-feature=+ptx84 in RUSTFLAGS (.b128 \
     atomics at .sys scope need ISA 8.4, ld/st.mmio needs 8.2; loading the PTX needs a CUDA \
     12.4+ driver), or use ptx_sync_build::PtxBuilder, which sets it"
);

/// A check of the library that stays in release builds: on the host an `assert!` (the same
/// panic message); on the GPU, when it fails, the message is printed with `vprintf` and the
/// thread traps ([`check_failed`]), whatever the kernel's panic handler does (a handler that
/// only traps would hide the message). In a `const fn` evaluated at compile time it is a
/// compile-time panic. `$msg` is a string literal (or `concat!`/`stringify!` of them), without
/// the `ptx-sync: ` prefix and newline the GPU adds.
macro_rules! check {
    ($cond:expr, $msg:expr $(,)?) => {
        #[cfg(not(target_arch = "nvptx64"))]
        assert!($cond, "{}", $msg);
        #[cfg(target_arch = "nvptx64")]
        if !$cond {
            // Both functions stop with the same message (NUL-terminated for `vprintf`).
            ::core::intrinsics::const_eval_select(
                (::core::concat!("ptx-sync: ", $msg, "\n\0"),),
                $crate::check_failed_in_const,
                $crate::check_failed,
            )
        }
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

pub mod atomic;
mod backend;
pub mod barrier;
pub mod binary_semaphore;
#[cfg(target_arch = "nvptx64")]
pub mod block;
#[cfg(all(target_arch = "nvptx64", target_feature = "sm_80"))]
pub mod block_barrier;
#[cfg(all(target_arch = "nvptx64", target_feature = "sm_90"))]
pub mod bulk;
mod cache_padded;
pub mod clock;
#[cfg(all(target_arch = "nvptx64", target_feature = "sm_90"))]
pub mod cluster;
pub mod fence;
pub mod flag;
pub mod float16;
#[cfg(target_arch = "nvptx64")]
pub mod grid;
pub mod latch;
pub mod mutex;
#[cfg(feature = "nvshmem")]
// The functions exist only in the nvptx build, which is what docs.rs documents; a host build
// of the docs keeps the types and the text, and its links to the functions do not resolve.
#[cfg_attr(
    not(target_arch = "nvptx64"),
    allow(rustdoc::broken_intra_doc_links, rustdoc::private_intra_doc_links)
)]
pub mod nvshmem;
mod order;
#[cfg(target_arch = "nvptx64")]
mod panic;
pub mod scope;
pub mod semaphore;
pub mod shared;
pub mod shared_static;
pub mod ticket;
pub mod volatile;
pub mod wait;
pub mod warp;

#[cfg(all(target_arch = "nvptx64", target_feature = "sm_90"))]
pub use atomic::space::ClusterShared;
pub use atomic::space::Global;
#[cfg(all(target_arch = "nvptx64", target_feature = "sm_90"))]
pub use atomic::AtomicU128;
pub use atomic::{
    Atomic, AtomicBool, AtomicF32, AtomicF64, AtomicI32, AtomicI64, AtomicIsize, AtomicPtr,
    AtomicU32, AtomicU64, AtomicUsize, AtomicValue,
};
pub use atomic::{
    AtomicBf16, AtomicBf16x2, AtomicF16, AtomicF16x2, AtomicI16, AtomicI8, AtomicU16, AtomicU8,
};
pub use barrier::{Barrier, Token};
#[cfg(all(target_arch = "nvptx64", target_feature = "sm_80"))]
pub use block_barrier::{BlockBarrier, BlockToken};
pub use cache_padded::CachePadded;
pub use core::sync::atomic::Ordering;
pub use fence::{compiler_fence, fence};
pub use flag::AtomicFlag;
pub use float16::{Bf16, Bf16x2, F16x2, F16};
#[cfg(target_arch = "nvptx64")]
pub use grid::GridBarrier;
pub use latch::Latch;
pub use mutex::{Mutex, MutexGuard, SpinLock};
#[cfg(target_arch = "nvptx64")]
pub use panic::report_panic;
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
pub use scope::Cluster;
pub use scope::{Cta, Gpu, Scope, ScopeKind, Sys};
pub use semaphore::{BinarySemaphore, Semaphore};
pub use ticket::{TicketGuard, TicketLock};
pub use wait::{Backoff, Elapsed, NanoSleep, Spin, TimedOut};

/// A misuse that a debug build reports: on the GPU, `vprintf` the message and `trap` (the
/// launch fails with an illegal-instruction error and the message reaches the host's stdout
/// when the driver flushes the printf buffer); on the host, a panic with the message.
#[cold]
#[inline(never)]
pub(crate) fn debug_trap(message: &'static core::ffi::CStr) -> ! {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: a `CStr` is NUL-terminated.
    unsafe {
        print_and_trap(message.as_ptr().cast())
    }
    #[cfg(not(target_arch = "nvptx64"))]
    panic!(
        "{}",
        message.to_str().unwrap_or("ptx-sync: misuse").trim_end()
    );
}

/// The one trap path of the GPU build: `vprintf` of `message` (no conversions, no arguments),
/// then `trap`.
///
/// # Safety
/// `message` is NUL-terminated and holds no `%`.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
unsafe fn print_and_trap(message: *const u8) -> ! {
    extern "C" {
        // CUDA's device-side printf, provided by the driver's JIT (as for `printf` in C++).
        fn vprintf(format: *const u8, args: *const u8) -> i32;
    }
    // SAFETY: the caller's contract; no arguments.
    unsafe {
        vprintf(message, core::ptr::null());
        core::arch::asm!("trap;", options(noreturn, nostack));
    }
}

/// A failed [`check!`] on the GPU: `message` ends in `"\n\0"`.
#[cfg(target_arch = "nvptx64")]
#[cold]
#[inline(never)]
pub(crate) fn check_failed(message: &'static str) -> ! {
    // SAFETY: `check!` passes a literal ending in a NUL; the messages hold no `%`.
    unsafe { print_and_trap(message.as_ptr()) }
}

/// A failed [`check!`] in a `const fn` evaluated at compile time: a compile error with the
/// host's message (without the `ptx-sync: ` prefix and the `"\n\0"` that `vprintf` needs).
#[cfg(target_arch = "nvptx64")]
pub(crate) const fn check_failed_in_const(message: &'static str) -> ! {
    let bytes = message.as_bytes();
    let (_, text) = bytes.split_at("ptx-sync: ".len());
    let (text, _) = text.split_at(text.len() - "\n\0".len());
    match core::str::from_utf8(text) {
        Ok(text) => panic!("{}", text),
        Err(_) => panic!("{}", message),
    }
}

/// In a debug build on the GPU, traps with `message` when `object` is in local memory (a
/// kernel's local variable): the PTX ISA leaves atomics on `.local` addresses undefined, and
/// no other thread can reach a thread's local memory anyway. `isspacep.local` is one
/// instruction; release builds emit nothing. libcu++ guards the same case.
#[inline(always)]
pub(crate) fn debug_check_not_local<T: ?Sized>(object: &T, message: &'static core::ffi::CStr) {
    #[cfg(target_arch = "nvptx64")]
    if cfg!(debug_assertions) {
        let p = object as *const T as *const u8;
        if atomic::space::in_space(p, atomic::space::SpaceKind::Local) {
            debug_trap(message);
        }
    }
    #[cfg(not(target_arch = "nvptx64"))]
    let _ = (object, message);
}
