//! The cluster barrier and `mapa` of the `cluster` module (sm_90, GPU only).

/// `barrier.cluster.arrive.release;`
#[inline(always)]
pub(crate) fn arrive() {
    // SAFETY: no operands; not `nomem`, so also a compiler barrier.
    unsafe { core::arch::asm!("barrier.cluster.arrive.release;", options(nostack)) }
}

/// `barrier.cluster.arrive.relaxed;`
#[inline(always)]
pub(crate) fn arrive_relaxed() {
    // SAFETY: as in `arrive`.
    unsafe { core::arch::asm!("barrier.cluster.arrive.relaxed;", options(nostack)) }
}

/// `barrier.cluster.wait.acquire;`
#[inline(always)]
pub(crate) fn wait() {
    // SAFETY: as in `arrive`.
    unsafe { core::arch::asm!("barrier.cluster.wait.acquire;", options(nostack)) }
}

/// `mapa.u64 out, ptr, rank;`: the generic address of the same shared-memory location in
/// block `rank` of the cluster. Computes an address only.
#[inline(always)]
pub(crate) fn map_shared(ptr: u64, rank: u32) -> u64 {
    let out: u64;
    // SAFETY: computes an address; reads no memory.
    unsafe {
        core::arch::asm!("mapa.u64 {o}, {p}, {r};", o = out(reg64) out, p = in(reg64) ptr,
                         r = in(reg32) rank, options(nostack, nomem, pure))
    };
    out
}
