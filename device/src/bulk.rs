//! Bulk asynchronous copies (sm_90, GPU only): the copy engine (TMA) moves a block of global
//! memory into this block's shared memory while the threads go on, and signals a
//! [`BlockBarrier`] with the bytes it delivered, as libcu++'s `cuda::device::memcpy_async_tx`.
//!
//! The pattern: one thread issues the copies of a phase and announces their bytes with
//! [`BlockBarrier::arrive_expect_tx`] (or [`BlockBarrier::expect_tx`] before its arrival); the
//! other threads arrive; everyone waits on the phase. The phase completes only when all
//! arrivals are in AND the copies have delivered every announced byte (the barrier's
//! tx-count), so a wait that returns sees the data.
//!
//! ```ignore
//! use ptx_sync::{block, bulk, shared::Shared, BlockBarrier};
//!
//! /// Copies 4 KiB of `src` into dynamic shared memory, then every thread reads its word.
//! ///
//! /// # Safety
//! /// A launch with 16 + 4096 bytes of dynamic shared memory and at most 1024 threads per
//! /// block (x only); `src` is 16-byte aligned global memory of 1024 `u32`s, `out` holds one
//! /// `u32` per thread of the block.
//! #[unsafe(no_mangle)]
//! pub unsafe extern "ptx-kernel" fn doc_bulk_copy(src: *const u32, out: *mut u32) {
//!     unsafe {
//!         let smem = Shared::dynamic();
//!         let bar = BlockBarrier::from_ptr(smem.generic().cast());
//!         let buf = smem.add(16).cast::<u32>(); // 16-byte aligned, after the barrier
//!         let t = block::thread_x();
//!         if t == 0 {
//!             bar.init(block::dim_x());
//!         }
//!         block::sync();
//!         let token = if t == 0 {
//!             // cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes
//!             bulk::copy_global_to_shared(buf, src, 4096, bar);
//!             bar.arrive_expect_tx(4096)
//!         } else {
//!             bar.arrive()
//!         };
//!         bar.wait(token); // the copy's bytes are visible: no fence to read them
//!         out.add(t as usize).write(buf.add(t as usize).read());
//!     }
//! }
//! ```
//!
//! # Proxies: when a fence is needed
//!
//! Bulk copies run in the *async proxy*; the threads' own loads and stores in the *generic
//! proxy*. The PTX ISA ("Async proxy", "Memory consistency model: proxies") asks for a
//! cross-proxy fence between accesses to the same memory through different proxies:
//!
//! - Copy, then threads read: no fence. The completion of a bulk copy is followed by an
//!   implicit generic-async proxy fence, so the data is visible to every thread whose wait on
//!   the barrier phase returned.
//! - Threads write, then a copy reads or overwrites the same bytes (shared memory a copy
//!   will fill again, or a global source the kernel itself wrote): every writing thread runs
//!   [`fence_proxy_async_shared`] (shared memory) or [`fence_proxy_async`] (any state space)
//!   after its writes, and the thread that issues the copy is ordered after those fences
//!   (`block::sync()`), as CUTLASS does before a TMA store (`fence_view_async_shared`).
//!   Without it the generic write may land after the copy's data.
//! - Memory the host wrote before the launch needs nothing.
//!
//! ## PTX and CUDA C++
//!
//! | Item | PTX it emits | CUDA C++ / libcu++ |
//! |------|--------------|--------------------|
//! | `bulk::{copy_global_to_shared, fence_proxy_async_shared, fence_proxy_async}` (sm_90, GPU only) | `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes`, `fence.proxy.async.shared::cta`, `fence.proxy.async` | `cuda::device::memcpy_async_tx`, `cuda::ptx::fence_proxy_async` |

use crate::backend::address_space::{in_space, SpaceKind};
use crate::backend::bulk;
use crate::shared::Shared;
use crate::block_barrier::BlockBarrier;

const SIZE: &core::ffi::CStr =
    c"ptx-sync: bulk::copy_global_to_shared: bytes must be a positive multiple of 16\n";
const DST_ALIGN: &core::ffi::CStr =
    c"ptx-sync: bulk::copy_global_to_shared: dst is not 16-byte aligned\n";
const SRC_ALIGN: &core::ffi::CStr =
    c"ptx-sync: bulk::copy_global_to_shared: src is not 16-byte aligned\n";
const SRC_SPACE: &core::ffi::CStr =
    c"ptx-sync: bulk::copy_global_to_shared: src is not in global memory\n";
const BAR_SPACE: &core::ffi::CStr =
    c"ptx-sync: bulk::copy_global_to_shared: the barrier is not in this block's shared memory\n";

/// Starts an asynchronous copy of `bytes` bytes from global memory at `src` to this block's
/// shared memory at `dst`, and returns at once. When the bytes have landed, the copy engine
/// counts them as done on `barrier`'s current phase (a *complete-tx* of `bytes`), so some
/// thread must announce them on that phase with [`BlockBarrier::expect_tx`] or
/// [`BlockBarrier::arrive_expect_tx`] before it arrives; otherwise the phase's tx-count goes
/// negative and the phase never completes. Read `dst` only after a wait on that phase has
/// returned. sm_90, GPU only (libcu++: `cuda::device::memcpy_async_tx`).
///
/// The data is weak (plain) memory; the barrier's completion releases it at `.cluster` scope
/// and a wait acquires it: no fence is needed to read it. See the [module](self) docs for the
/// fence that writes by threads to `dst` (or to `src`) need before a copy.
///
/// PTX: `cvta.to.global.u64 g, src;
/// cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [g], bytes, [bar];`
/// with the `.shared` addresses of `dst` and the barrier. (`.shared::cluster` with this
/// block's own address is the form of PTX ISA 8.0, which libcu++ also emits below ISA 8.6;
/// the `.shared::cta` destination needs 8.6.) Debug builds also run `isspacep.global` and
/// `isspacep.shared::cta`, and trap with a message when a size or alignment rule below is
/// broken, `src` is outside global memory or the barrier outside shared memory.
///
/// # Safety
/// - `bytes` is a positive multiple of 16 (debug builds trap otherwise).
/// - `dst` and `src` are 16-byte aligned (debug builds trap otherwise; the PTX ISA requires
///   it of `cp.async.bulk`, and release builds copy wrong bytes or fault). A
///   [`shared!`](crate::shared!) variable has its type's alignment (4 for a `[u32; N]`):
///   declare a copy's target `#[align(16)]` (`shared! { #[align(16)] static TILE: [u32; 1024]; }`).
/// - `src .. src + bytes` is readable global memory (debug builds check that `src` is in the
///   global window), not written during the copy.
/// - `dst .. dst + bytes` lies in this block's shared memory (the launch's dynamic shared
///   memory, for [`Shared::dynamic`]), and nobody reads or writes it until a wait on the
///   barrier's phase has returned.
/// - `barrier` is initialized, in this block's shared memory (debug builds check), and its
///   current phase expects these bytes (see above).
///
/// # Panics
///
/// In a debug build, traps with a message when `bytes` is 0 or not a multiple of 16, `dst` or `src`
/// is not 16-byte aligned, `src` is not in global memory or `barrier` is not in this block's shared
/// memory; release builds do not check (see Safety).
#[inline(always)]
pub unsafe fn copy_global_to_shared<T>(
    dst: Shared<T>,
    src: *const T,
    bytes: u32,
    barrier: &BlockBarrier,
) {
    if cfg!(debug_assertions) {
        if bytes == 0 || !bytes.is_multiple_of(16) {
            crate::debug::trap(SIZE);
        }
        if !dst.address().is_multiple_of(16) {
            crate::debug::trap(DST_ALIGN);
        }
        if !(src as usize).is_multiple_of(16) {
            crate::debug::trap(SRC_ALIGN);
        }
        if !in_space(src.cast(), SpaceKind::Global) {
            crate::debug::trap(SRC_SPACE);
        }
        if !in_space(
            (barrier as *const BlockBarrier).cast(),
            SpaceKind::SharedCta,
        ) {
            crate::debug::trap(BAR_SPACE);
        }
    }
    // SAFETY: the caller's contract.
    unsafe {
        bulk::copy_global_to_shared(
            dst.address(),
            src as u64,
            bytes,
            barrier.shared_address(),
        )
    }
}

/// Orders this thread's earlier accesses to its block's shared memory through ordinary
/// loads and stores (the generic proxy) before later bulk copies (the async proxy) that
/// access the same bytes. Each thread that wrote the bytes runs it; then the block
/// synchronizes and one thread issues the copy (see the [module](self) docs). sm_90, GPU only.
///
/// PTX: `fence.proxy.async.shared::cta;` (CUTLASS's `fence_view_async_shared`).
#[inline(always)]
pub fn fence_proxy_async_shared() {
    bulk::fence_proxy_async_shared()
}

/// As [`fence_proxy_async_shared`], for every state space: for a global source the kernel
/// itself wrote before a bulk copy reads it. sm_90, GPU only.
///
/// PTX: `fence.proxy.async;`.
#[inline(always)]
pub fn fence_proxy_async() {
    bulk::fence_proxy_async()
}
