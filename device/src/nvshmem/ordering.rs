//! Ordering and completion of the calling thread's remote operations: [`fence`] and
//! [`quiet`].
//!
//! NVSHMEM 3.4.5 has no warp or block forms of these (no `nvshmemx_quiet_warp` in its device
//! library); each thread orders its own operations.

gpu_only! {
    /// Orders the calling thread's puts, remote atomics and signals to each one PE: those issued
    /// before it are observed at that PE before those issued after it (no order between different
    /// PEs, no completion). Calls `nvshmem_fence`.
    ///
    /// Within a node NVSHMEM makes it a `fence.sc.sys` (`__threadfence_system`), after waiting
    /// for the network transport's ordering when there is one.
    #[inline(always)]
    pub fn fence() {
        extern "C" {
            fn nvshmem_fence();
        }
        // SAFETY: no arguments; it orders the calling thread's own operations.
        unsafe { nvshmem_fence() }
    }

    /// Completes the calling thread's puts (blocking and `_nbi`), gets (`_nbi`), remote atomics
    /// and signals: when it returns they are performed at their target PEs, and `_nbi` buffers may
    /// be reused. A release after it (a signal after a [`fence`], a `.sys` release store, a
    /// barrier) publishes them. Calls `nvshmem_quiet`.
    #[inline(always)]
    pub fn quiet() {
        extern "C" {
            fn nvshmem_quiet();
        }
        // SAFETY: no arguments; it completes the calling thread's own operations.
        unsafe { nvshmem_quiet() }
    }
}
