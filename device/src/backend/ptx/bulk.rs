//! The bulk-copy instructions of the `bulk` module (sm_90, GPU only).

/// `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [src], bytes,
/// [barrier];` from the generic address `src` (converted to `.global` in the asm).
///
/// # Safety
/// The `bulk::copy_global_to_shared` contract: `dst` and `barrier` are `.shared` addresses of
/// this block, `src` points to `bytes` readable bytes of global memory, all 16-byte aligned.
/// Not `nomem`: the copy writes `dst` (asynchronously; the wait that observes it is itself a
/// memory clobber, so no read of `dst` moves above it).
#[inline(always)]
pub(crate) unsafe fn copy_global_to_shared(dst: u32, src: u64, bytes: u32, barrier: u32) {
    // SAFETY: the caller's contract.
    unsafe {
        core::arch::asm!(
            "{{ .reg .b64 g; cvta.to.global.u64 g, {src}; \
             cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [{dst}], [g], {n}, [{bar}]; }}",
            src = in(reg64) src, dst = in(reg32) dst, n = in(reg32) bytes,
            bar = in(reg32) barrier, options(nostack))
    }
}

/// `fence.proxy.async.shared::cta;`
#[inline(always)]
pub(crate) fn fence_proxy_async_shared() {
    // SAFETY: no operands; not `nomem`, so also a compiler barrier.
    unsafe { core::arch::asm!("fence.proxy.async.shared::cta;", options(nostack)) }
}

/// `fence.proxy.async;`
#[inline(always)]
pub(crate) fn fence_proxy_async() {
    // SAFETY: as in `fence_proxy_async_shared`.
    unsafe { core::arch::asm!("fence.proxy.async;", options(nostack)) }
}
