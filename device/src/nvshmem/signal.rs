//! Signals: a put whose completion the target observes ([`put_signal`]), a remote update of
//! a signal word alone ([`signal_op`]), and waiting for or reading one ([`signal_wait_until`],
//! [`signal_fetch`]).
//!
//! A signal is a `u64` in the symmetric heap ([`Symmetric<u64>`](super::Symmetric)), zeroed
//! by the host before use. NVSHMEM updates it atomically with respect to other signal
//! operations on it ([`SignalOp::Set`] or [`SignalOp::Add`]).

/// How a signal operation updates the signal word (`nvshmemx_signal_op_t`, values from
/// device_host_transport/nvshmem_common_transport.h).
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SignalOp {
    /// Stores the value (`NVSHMEM_SIGNAL_SET`).
    Set = 9,
    /// Adds the value (`NVSHMEM_SIGNAL_ADD`): several writers can count into one signal.
    Add = 10,
}

gpu_only! {
    use super::rma::Element;
    use super::{c_pe, Cmp, Symmetric};
    use core::ffi::c_int;

    /// Copies `count` elements of `src` to `dest` on PE `pe`, then updates `signal` on `pe` with
    /// `op` and `value`. Returns once `src` may be reused. Calls `nvshmem_<T>_put_signal`
    /// ([the `Element` table](super::Element) names `<T>`: `nvshmem_uint64_put_signal` for `u64`).
    ///
    /// NVSHMEM delivers the data before the signal: a thread on `pe` that observes the signal's
    /// new value ([`signal_wait_until`], [`wait_until`](super::wait_until)) reads the data after
    /// it (the update is a release of the delivered data, the waiter's observation its acquire).
    ///
    /// # Safety
    /// `dest` symmetric with room for `count` elements, `src` readable for `count`, `signal` a
    /// symmetric `u64`, `pe < n_pes()`, and no data race on `dest` at `pe` (other than through
    /// signal operations on `signal`).
    #[inline(always)]
    pub unsafe fn put_signal<T: Element>(
        dest: Symmetric<T>,
        src: *const T,
        count: usize,
        signal: Symmetric<u64>,
        value: u64,
        op: SignalOp,
        pe: u32,
    ) {
        // SAFETY: the caller's promises.
        unsafe {
            T::put_signal(
                dest.as_ptr(),
                src,
                count,
                signal.as_ptr(),
                value,
                op as c_int,
                c_pe(pe),
            )
        }
    }

    /// [`put_signal`] without waiting: returns at once; `src` must stay unmodified until
    /// [`quiet`](super::quiet). The signal still follows the data at `pe`. Calls
    /// `nvshmem_<T>_put_signal_nbi`.
    ///
    /// # Safety
    /// As [`put_signal`], and `src` stays unmodified until the calling thread's next `quiet`.
    #[inline(always)]
    pub unsafe fn put_signal_nbi<T: Element>(
        dest: Symmetric<T>,
        src: *const T,
        count: usize,
        signal: Symmetric<u64>,
        value: u64,
        op: SignalOp,
        pe: u32,
    ) {
        // SAFETY: the caller's promises.
        unsafe {
            T::put_signal_nbi(
                dest.as_ptr(),
                src,
                count,
                signal.as_ptr(),
                value,
                op as c_int,
                c_pe(pe),
            )
        }
    }

    /// [`put_signal`] by a whole warp: the lanes share the copy, the signal is updated once.
    /// Calls `nvshmemx_<T>_put_signal_warp`.
    ///
    /// # Safety
    /// As [`put_signal`], and every lane of the warp calls it, converged, with the same arguments.
    #[inline(always)]
    pub unsafe fn put_signal_warp<T: Element>(
        dest: Symmetric<T>,
        src: *const T,
        count: usize,
        signal: Symmetric<u64>,
        value: u64,
        op: SignalOp,
        pe: u32,
    ) {
        // SAFETY: the caller's promises.
        unsafe {
            T::put_signal_warp(
                dest.as_ptr(),
                src,
                count,
                signal.as_ptr(),
                value,
                op as c_int,
                c_pe(pe),
            )
        }
    }

    /// [`put_signal`] by a whole block: its threads share the copy, the signal is updated once.
    /// Calls `nvshmemx_<T>_put_signal_block`.
    ///
    /// # Safety
    /// As [`put_signal`], and every thread of the block calls it with the same arguments.
    #[inline(always)]
    pub unsafe fn put_signal_block<T: Element>(
        dest: Symmetric<T>,
        src: *const T,
        count: usize,
        signal: Symmetric<u64>,
        value: u64,
        op: SignalOp,
        pe: u32,
    ) {
        // SAFETY: the caller's promises.
        unsafe {
            T::put_signal_block(
                dest.as_ptr(),
                src,
                count,
                signal.as_ptr(),
                value,
                op as c_int,
                c_pe(pe),
            )
        }
    }

    /// [`put_signal_nbi`] by a whole warp. Calls `nvshmemx_<T>_put_signal_nbi_warp`.
    ///
    /// # Safety
    /// As [`put_signal_nbi`], and every lane of the warp calls it, converged, with the same
    /// arguments.
    #[inline(always)]
    pub unsafe fn put_signal_nbi_warp<T: Element>(
        dest: Symmetric<T>,
        src: *const T,
        count: usize,
        signal: Symmetric<u64>,
        value: u64,
        op: SignalOp,
        pe: u32,
    ) {
        // SAFETY: the caller's promises.
        unsafe {
            T::put_signal_nbi_warp(
                dest.as_ptr(),
                src,
                count,
                signal.as_ptr(),
                value,
                op as c_int,
                c_pe(pe),
            )
        }
    }

    /// [`put_signal_nbi`] by a whole block. Calls `nvshmemx_<T>_put_signal_nbi_block`.
    ///
    /// # Safety
    /// As [`put_signal_nbi`], and every thread of the block calls it with the same arguments.
    #[inline(always)]
    pub unsafe fn put_signal_nbi_block<T: Element>(
        dest: Symmetric<T>,
        src: *const T,
        count: usize,
        signal: Symmetric<u64>,
        value: u64,
        op: SignalOp,
        pe: u32,
    ) {
        // SAFETY: the caller's promises.
        unsafe {
            T::put_signal_nbi_block(
                dest.as_ptr(),
                src,
                count,
                signal.as_ptr(),
                value,
                op as c_int,
                c_pe(pe),
            )
        }
    }

    /// Updates `signal` on PE `pe` with `op` and `value`, atomically with respect to other signal
    /// operations on it. Calls `nvshmemx_signal_op`.
    ///
    /// On its own it orders nothing: to publish data written by earlier puts to `pe`, call
    /// [`fence`](super::fence) between them and this (the signal is then observed after them).
    ///
    /// # Safety
    /// `signal` is a symmetric `u64` and `pe < n_pes()`.
    #[inline(always)]
    pub unsafe fn signal_op(signal: Symmetric<u64>, value: u64, op: SignalOp, pe: u32) {
        extern "C" {
            fn nvshmemx_signal_op(sig_addr: *mut u64, signal: u64, sig_op: c_int, pe: c_int);
        }
        // SAFETY: the caller's promises.
        unsafe { nvshmemx_signal_op(signal.as_ptr(), value, op as c_int, c_pe(pe)) }
    }

    /// Waits until this PE's `signal` compares `cmp` to `value` (`signal cmp value`, e.g.
    /// `Cmp::Ge`: `signal >= value`), and returns the value that satisfied it. Calls
    /// `nvshmem_signal_wait_until`.
    ///
    /// It returns after an observation that synchronizes with the signal's writer: the data a
    /// [`put_signal`] delivered before the signal (and what a [`fence`](super::fence) ordered
    /// before a [`signal_op`]) is visible to the calling thread. It spins: a signal that never
    /// comes hangs the kernel (the host's watchdog reports it).
    ///
    /// # Safety
    /// `signal` is a symmetric `u64` that only signal operations write while anyone waits.
    #[inline(always)]
    pub unsafe fn signal_wait_until(signal: Symmetric<u64>, cmp: Cmp, value: u64) -> u64 {
        extern "C" {
            fn nvshmem_signal_wait_until(sig_addr: *mut u64, cmp: c_int, cmp_val: u64) -> u64;
        }
        // SAFETY: the caller's promises.
        unsafe { nvshmem_signal_wait_until(signal.as_ptr(), cmp as c_int, value) }
    }

    /// This PE's `signal`, read once (a volatile load in NVSHMEM 3.4.5: it does not acquire; to
    /// read data a signal publishes, wait with [`signal_wait_until`]). Calls
    /// `nvshmem_signal_fetch`.
    ///
    /// # Safety
    /// `signal` is a symmetric `u64`.
    #[inline(always)]
    pub unsafe fn signal_fetch(signal: Symmetric<u64>) -> u64 {
        extern "C" {
            fn nvshmem_signal_fetch(sig_addr: *mut u64) -> u64;
        }
        // SAFETY: the caller's promises.
        unsafe { nvshmem_signal_fetch(signal.as_ptr()) }
    }
}
