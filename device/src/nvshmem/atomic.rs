//! Remote atomics on a symmetric variable of another PE (NVSHMEM's AMOs): fetch, set, swap,
//! compare-and-swap, add, increment and the bitwise operations, with and without the old
//! value.
//!
//! An AMO is atomic with respect to every other NVSHMEM atomic on the same variable, from any
//! PE (not with plain loads and stores, nor with atomics that do not go through NVSHMEM: over
//! a network transport a remote AMO is done by the target's NIC or proxy). It is relaxed: it
//! orders none of the calling thread's other accesses. [`fence`](super::fence) orders it with
//! the thread's other puts, AMOs and signals to the same PE; [`quiet`](super::quiet) completes
//! the ones that return nothing.
//!
//! Every function is `unsafe`: `dest` / `src` must be a symmetric `T` (a [`Symmetric`]
//! that is not is undefined behavior at the peer), and `pe < n_pes()`.
//!
//! [`Symmetric`]: super::Symmetric

use crate::backend::nvshmem::{atomic_elements, Amo};

/// A type the remote atomics work on: `u32 u64 i32 i64`, NVSHMEM's `uint32 uint64 int32
/// int64` (`atomic_fetch_add::<u64>` calls `nvshmem_uint64_atomic_fetch_add`). One exception:
/// NVSHMEM 3.4.5 has no `int64` add or increment, so for `i64` those four
/// (`atomic_add`, `atomic_fetch_add`, `atomic_inc`, `atomic_fetch_inc`) call the `long` ones
/// (`nvshmem_long_atomic_fetch_add`: C's `long` is 64-bit on nvptx64). Sealed.
pub trait AtomicElement: Amo + Copy {}

// One row per type with each operation's NVSHMEM symbol spelled out (greppable).
atomic_elements! {
    u32 {
        fetch => nvshmem_uint32_atomic_fetch;
        update: set => nvshmem_uint32_atomic_set, add => nvshmem_uint32_atomic_add,
            and => nvshmem_uint32_atomic_and, or => nvshmem_uint32_atomic_or,
            xor => nvshmem_uint32_atomic_xor;
        fetching: swap => nvshmem_uint32_atomic_swap, fetch_add => nvshmem_uint32_atomic_fetch_add,
            fetch_and => nvshmem_uint32_atomic_fetch_and,
            fetch_or => nvshmem_uint32_atomic_fetch_or,
            fetch_xor => nvshmem_uint32_atomic_fetch_xor;
        compare_swap => nvshmem_uint32_atomic_compare_swap;
        fetch_inc => nvshmem_uint32_atomic_fetch_inc; inc => nvshmem_uint32_atomic_inc;
    }
    u64 {
        fetch => nvshmem_uint64_atomic_fetch;
        update: set => nvshmem_uint64_atomic_set, add => nvshmem_uint64_atomic_add,
            and => nvshmem_uint64_atomic_and, or => nvshmem_uint64_atomic_or,
            xor => nvshmem_uint64_atomic_xor;
        fetching: swap => nvshmem_uint64_atomic_swap, fetch_add => nvshmem_uint64_atomic_fetch_add,
            fetch_and => nvshmem_uint64_atomic_fetch_and,
            fetch_or => nvshmem_uint64_atomic_fetch_or,
            fetch_xor => nvshmem_uint64_atomic_fetch_xor;
        compare_swap => nvshmem_uint64_atomic_compare_swap;
        fetch_inc => nvshmem_uint64_atomic_fetch_inc; inc => nvshmem_uint64_atomic_inc;
    }
    i32 {
        fetch => nvshmem_int32_atomic_fetch;
        update: set => nvshmem_int32_atomic_set, add => nvshmem_int32_atomic_add,
            and => nvshmem_int32_atomic_and, or => nvshmem_int32_atomic_or,
            xor => nvshmem_int32_atomic_xor;
        fetching: swap => nvshmem_int32_atomic_swap, fetch_add => nvshmem_int32_atomic_fetch_add,
            fetch_and => nvshmem_int32_atomic_fetch_and,
            fetch_or => nvshmem_int32_atomic_fetch_or,
            fetch_xor => nvshmem_int32_atomic_fetch_xor;
        compare_swap => nvshmem_int32_atomic_compare_swap;
        fetch_inc => nvshmem_int32_atomic_fetch_inc; inc => nvshmem_int32_atomic_inc;
    }
    // No nvshmem_int64_atomic_{add,fetch_add,inc,fetch_inc} in 3.4.5's libnvshmem_device.bc:
    // the `long` ones (int64_t on nvptx64) take their place.
    i64 {
        fetch => nvshmem_int64_atomic_fetch;
        update: set => nvshmem_int64_atomic_set, add => nvshmem_long_atomic_add,
            and => nvshmem_int64_atomic_and, or => nvshmem_int64_atomic_or,
            xor => nvshmem_int64_atomic_xor;
        fetching: swap => nvshmem_int64_atomic_swap, fetch_add => nvshmem_long_atomic_fetch_add,
            fetch_and => nvshmem_int64_atomic_fetch_and,
            fetch_or => nvshmem_int64_atomic_fetch_or,
            fetch_xor => nvshmem_int64_atomic_fetch_xor;
        compare_swap => nvshmem_int64_atomic_compare_swap;
        fetch_inc => nvshmem_long_atomic_fetch_inc; inc => nvshmem_long_atomic_inc;
    }
}

gpu_only! {
    use super::{c_pe, Symmetric};

    /// Reads `src` on PE `pe` atomically and returns it. Calls `nvshmem_<T>_atomic_fetch`.
    ///
    /// # Safety
    /// `src` is a symmetric `T`, `pe < n_pes()`, and every concurrent access to it at `pe` is
    /// an NVSHMEM atomic.
    #[inline(always)]
    pub unsafe fn atomic_fetch<T: AtomicElement>(src: Symmetric<T>, pe: u32) -> T {
        // SAFETY: the caller's promises.
        unsafe { T::fetch(src.as_ptr(), c_pe(pe)) }
    }

    /// Writes `value` to `dest` on PE `pe` atomically. Calls `nvshmem_<T>_atomic_set`.
    ///
    /// # Safety
    /// `dest` is a symmetric `T`, `pe < n_pes()`, and every concurrent access to it at `pe` is
    /// an NVSHMEM atomic.
    #[inline(always)]
    pub unsafe fn atomic_set<T: AtomicElement>(dest: Symmetric<T>, value: T, pe: u32) {
        // SAFETY: the caller's promises.
        unsafe { T::set(dest.as_ptr(), value, c_pe(pe)) }
    }

    /// Writes `value` to `dest` on PE `pe` and returns the old value, atomically. Calls
    /// `nvshmem_<T>_atomic_swap`.
    ///
    /// # Safety
    /// `dest` is a symmetric `T`, `pe < n_pes()`, and every concurrent access to it at `pe` is
    /// an NVSHMEM atomic.
    #[inline(always)]
    pub unsafe fn atomic_swap<T: AtomicElement>(dest: Symmetric<T>, value: T, pe: u32) -> T {
        // SAFETY: the caller's promises.
        unsafe { T::swap(dest.as_ptr(), value, c_pe(pe)) }
    }

    /// Writes `value` to `dest` on PE `pe` if it holds `cond`, and returns the old value (equal to
    /// `cond` when it wrote), atomically. Calls `nvshmem_<T>_atomic_compare_swap`.
    ///
    /// # Safety
    /// `dest` is a symmetric `T`, `pe < n_pes()`, and every concurrent access to it at `pe` is
    /// an NVSHMEM atomic.
    #[inline(always)]
    pub unsafe fn atomic_compare_swap<T: AtomicElement>(
        dest: Symmetric<T>,
        cond: T,
        value: T,
        pe: u32,
    ) -> T {
        // SAFETY: the caller's promises.
        unsafe { T::compare_swap(dest.as_ptr(), cond, value, c_pe(pe)) }
    }

    /// Adds `value` to `dest` on PE `pe` (wrapping) and returns the old value, atomically. Calls
    /// `nvshmem_<T>_atomic_fetch_add` (`nvshmem_long_atomic_fetch_add` for `i64`).
    ///
    /// # Safety
    /// `dest` is a symmetric `T`, `pe < n_pes()`, and every concurrent access to it at `pe` is
    /// an NVSHMEM atomic.
    #[inline(always)]
    pub unsafe fn atomic_fetch_add<T: AtomicElement>(dest: Symmetric<T>, value: T, pe: u32) -> T {
        // SAFETY: the caller's promises.
        unsafe { T::fetch_add(dest.as_ptr(), value, c_pe(pe)) }
    }

    /// Adds `value` to `dest` on PE `pe` (wrapping), atomically, without returning the old value
    /// (complete after [`quiet`](super::quiet)). Calls `nvshmem_<T>_atomic_add`
    /// (`nvshmem_long_atomic_add` for `i64`).
    ///
    /// # Safety
    /// `dest` is a symmetric `T`, `pe < n_pes()`, and every concurrent access to it at `pe` is
    /// an NVSHMEM atomic.
    #[inline(always)]
    pub unsafe fn atomic_add<T: AtomicElement>(dest: Symmetric<T>, value: T, pe: u32) {
        // SAFETY: the caller's promises.
        unsafe { T::add(dest.as_ptr(), value, c_pe(pe)) }
    }

    /// Adds 1 to `dest` on PE `pe` (wrapping) and returns the old value, atomically. Calls
    /// `nvshmem_<T>_atomic_fetch_inc` (`nvshmem_long_atomic_fetch_inc` for `i64`).
    ///
    /// # Safety
    /// `dest` is a symmetric `T`, `pe < n_pes()`, and every concurrent access to it at `pe` is
    /// an NVSHMEM atomic.
    #[inline(always)]
    pub unsafe fn atomic_fetch_inc<T: AtomicElement>(dest: Symmetric<T>, pe: u32) -> T {
        // SAFETY: the caller's promises.
        unsafe { T::fetch_inc(dest.as_ptr(), c_pe(pe)) }
    }

    /// Adds 1 to `dest` on PE `pe` (wrapping), atomically, without returning the old value. Calls
    /// `nvshmem_<T>_atomic_inc` (`nvshmem_long_atomic_inc` for `i64`).
    ///
    /// # Safety
    /// `dest` is a symmetric `T`, `pe < n_pes()`, and every concurrent access to it at `pe` is
    /// an NVSHMEM atomic.
    #[inline(always)]
    pub unsafe fn atomic_inc<T: AtomicElement>(dest: Symmetric<T>, pe: u32) {
        // SAFETY: the caller's promises.
        unsafe { T::inc(dest.as_ptr(), c_pe(pe)) }
    }

    /// Bitwise-ANDs `value` into `dest` on PE `pe` and returns the old value, atomically.
    /// Calls `nvshmem_<T>_atomic_fetch_and`.
    ///
    /// # Safety
    /// `dest` is a symmetric `T`, `pe < n_pes()`, and every concurrent access to it at `pe` is
    /// an NVSHMEM atomic.
    #[inline(always)]
    pub unsafe fn atomic_fetch_and<T: AtomicElement>(dest: Symmetric<T>, value: T, pe: u32) -> T {
        // SAFETY: the caller's promises.
        unsafe { T::fetch_and(dest.as_ptr(), value, c_pe(pe)) }
    }

    /// Bitwise-ORs `value` into `dest` on PE `pe` and returns the old value, atomically.
    /// Calls `nvshmem_<T>_atomic_fetch_or`.
    ///
    /// # Safety
    /// `dest` is a symmetric `T`, `pe < n_pes()`, and every concurrent access to it at `pe` is
    /// an NVSHMEM atomic.
    #[inline(always)]
    pub unsafe fn atomic_fetch_or<T: AtomicElement>(dest: Symmetric<T>, value: T, pe: u32) -> T {
        // SAFETY: the caller's promises.
        unsafe { T::fetch_or(dest.as_ptr(), value, c_pe(pe)) }
    }

    /// Bitwise-XORs `value` into `dest` on PE `pe` and returns the old value, atomically.
    /// Calls `nvshmem_<T>_atomic_fetch_xor`.
    ///
    /// # Safety
    /// `dest` is a symmetric `T`, `pe < n_pes()`, and every concurrent access to it at `pe` is
    /// an NVSHMEM atomic.
    #[inline(always)]
    pub unsafe fn atomic_fetch_xor<T: AtomicElement>(dest: Symmetric<T>, value: T, pe: u32) -> T {
        // SAFETY: the caller's promises.
        unsafe { T::fetch_xor(dest.as_ptr(), value, c_pe(pe)) }
    }

    /// Bitwise-ANDs `value` into `dest` on PE `pe`, atomically, without returning the old
    /// value. Calls `nvshmem_<T>_atomic_and`.
    ///
    /// # Safety
    /// `dest` is a symmetric `T`, `pe < n_pes()`, and every concurrent access to it at `pe` is
    /// an NVSHMEM atomic.
    #[inline(always)]
    pub unsafe fn atomic_and<T: AtomicElement>(dest: Symmetric<T>, value: T, pe: u32) {
        // SAFETY: the caller's promises.
        unsafe { T::and(dest.as_ptr(), value, c_pe(pe)) }
    }

    /// Bitwise-ORs `value` into `dest` on PE `pe`, atomically, without returning the old
    /// value. Calls `nvshmem_<T>_atomic_or`.
    ///
    /// # Safety
    /// `dest` is a symmetric `T`, `pe < n_pes()`, and every concurrent access to it at `pe` is
    /// an NVSHMEM atomic.
    #[inline(always)]
    pub unsafe fn atomic_or<T: AtomicElement>(dest: Symmetric<T>, value: T, pe: u32) {
        // SAFETY: the caller's promises.
        unsafe { T::or(dest.as_ptr(), value, c_pe(pe)) }
    }

    /// Bitwise-XORs `value` into `dest` on PE `pe`, atomically, without returning the old
    /// value. Calls `nvshmem_<T>_atomic_xor`.
    ///
    /// # Safety
    /// `dest` is a symmetric `T`, `pe < n_pes()`, and every concurrent access to it at `pe` is
    /// an NVSHMEM atomic.
    #[inline(always)]
    pub unsafe fn atomic_xor<T: AtomicElement>(dest: Symmetric<T>, value: T, pe: u32) {
        // SAFETY: the caller's promises.
        unsafe { T::xor(dest.as_ptr(), value, c_pe(pe)) }
    }
}
