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

#[cfg(target_arch = "nvptx64")]
use super::{c_pe, Symmetric};
#[cfg(target_arch = "nvptx64")]
use core::ffi::c_int;

pub(super) mod sealed {
    #[cfg(target_arch = "nvptx64")]
    use core::ffi::c_int;

    /// The per-type symbols of [`AtomicElement`](super::AtomicElement), stamped by
    /// `atomic_elements!`. C signatures from device/nvshmem_defines.h: `T
    /// nvshmem_<T>_atomic_fetch(const T *source, int pe)`, `void _set / _add / _and / _or /
    /// _xor(T *dest, T value, int pe)`, `T _swap / _fetch_add / _fetch_and / _fetch_or /
    /// _fetch_xor(T *dest, T value, int pe)`, `T _compare_swap(T *dest, T cond, T value, int
    /// pe)`, `T _fetch_inc(T *dest, int pe)`, `void _inc(T *dest, int pe)`.
    pub trait Amo: Sized {
        #[cfg(target_arch = "nvptx64")]
        unsafe fn fetch(source: *const Self, pe: c_int) -> Self;
        #[cfg(target_arch = "nvptx64")]
        unsafe fn set(dest: *mut Self, value: Self, pe: c_int);
        #[cfg(target_arch = "nvptx64")]
        unsafe fn add(dest: *mut Self, value: Self, pe: c_int);
        #[cfg(target_arch = "nvptx64")]
        unsafe fn and(dest: *mut Self, value: Self, pe: c_int);
        #[cfg(target_arch = "nvptx64")]
        unsafe fn or(dest: *mut Self, value: Self, pe: c_int);
        #[cfg(target_arch = "nvptx64")]
        unsafe fn xor(dest: *mut Self, value: Self, pe: c_int);
        #[cfg(target_arch = "nvptx64")]
        unsafe fn swap(dest: *mut Self, value: Self, pe: c_int) -> Self;
        #[cfg(target_arch = "nvptx64")]
        unsafe fn fetch_add(dest: *mut Self, value: Self, pe: c_int) -> Self;
        #[cfg(target_arch = "nvptx64")]
        unsafe fn fetch_and(dest: *mut Self, value: Self, pe: c_int) -> Self;
        #[cfg(target_arch = "nvptx64")]
        unsafe fn fetch_or(dest: *mut Self, value: Self, pe: c_int) -> Self;
        #[cfg(target_arch = "nvptx64")]
        unsafe fn fetch_xor(dest: *mut Self, value: Self, pe: c_int) -> Self;
        #[cfg(target_arch = "nvptx64")]
        unsafe fn compare_swap(dest: *mut Self, cond: Self, value: Self, pe: c_int) -> Self;
        #[cfg(target_arch = "nvptx64")]
        unsafe fn fetch_inc(dest: *mut Self, pe: c_int) -> Self;
        #[cfg(target_arch = "nvptx64")]
        unsafe fn inc(dest: *mut Self, pe: c_int);
    }
}

/// A type the remote atomics work on: `u32 u64 i32 i64`, NVSHMEM's `uint32 uint64 int32
/// int64` (`atomic_fetch_add::<u64>` calls `nvshmem_uint64_atomic_fetch_add`). One exception:
/// NVSHMEM 3.4.5 has no `int64` add or increment, so for `i64` those four
/// (`atomic_add`, `atomic_fetch_add`, `atomic_inc`, `atomic_fetch_inc`) call the `long` ones
/// (`nvshmem_long_atomic_fetch_add`: C's `long` is 64-bit on nvptx64). Sealed.
pub trait AtomicElement: sealed::Amo + Copy {}

// One row per type with each operation's NVSHMEM symbol spelled out (greppable).
macro_rules! atomic_elements {
    ($(
        $t:ty {
            fetch => $fetch:ident;
            update: $($update:ident => $update_sym:ident),+;
            fetching: $($fetching:ident => $fetching_sym:ident),+;
            compare_swap => $cas:ident; fetch_inc => $fetch_inc:ident; inc => $inc:ident;
        }
    )+) => {$(
        impl AtomicElement for $t {}
        impl sealed::Amo for $t {
            #[cfg(target_arch = "nvptx64")]
            #[inline(always)]
            unsafe fn fetch(source: *const $t, pe: c_int) -> $t {
                extern "C" {
                    fn $fetch(source: *const $t, pe: c_int) -> $t;
                }
                // SAFETY: the public function's caller keeps its promises.
                unsafe { $fetch(source, pe) }
            }
            $(
                #[cfg(target_arch = "nvptx64")]
                #[inline(always)]
                unsafe fn $update(dest: *mut $t, value: $t, pe: c_int) {
                    extern "C" {
                        fn $update_sym(dest: *mut $t, value: $t, pe: c_int);
                    }
                    // SAFETY: the public function's caller keeps its promises.
                    unsafe { $update_sym(dest, value, pe) }
                }
            )+
            $(
                #[cfg(target_arch = "nvptx64")]
                #[inline(always)]
                unsafe fn $fetching(dest: *mut $t, value: $t, pe: c_int) -> $t {
                    extern "C" {
                        fn $fetching_sym(dest: *mut $t, value: $t, pe: c_int) -> $t;
                    }
                    // SAFETY: the public function's caller keeps its promises.
                    unsafe { $fetching_sym(dest, value, pe) }
                }
            )+
            #[cfg(target_arch = "nvptx64")]
            #[inline(always)]
            unsafe fn compare_swap(dest: *mut $t, cond: $t, value: $t, pe: c_int) -> $t {
                extern "C" {
                    fn $cas(dest: *mut $t, cond: $t, value: $t, pe: c_int) -> $t;
                }
                // SAFETY: the public function's caller keeps its promises.
                unsafe { $cas(dest, cond, value, pe) }
            }
            #[cfg(target_arch = "nvptx64")]
            #[inline(always)]
            unsafe fn fetch_inc(dest: *mut $t, pe: c_int) -> $t {
                extern "C" {
                    fn $fetch_inc(dest: *mut $t, pe: c_int) -> $t;
                }
                // SAFETY: the public function's caller keeps its promises.
                unsafe { $fetch_inc(dest, pe) }
            }
            #[cfg(target_arch = "nvptx64")]
            #[inline(always)]
            unsafe fn inc(dest: *mut $t, pe: c_int) {
                extern "C" {
                    fn $inc(dest: *mut $t, pe: c_int);
                }
                // SAFETY: the public function's caller keeps its promises.
                unsafe { $inc(dest, pe) }
            }
        }
    )+};
}

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

/// Reads `src` on PE `pe` atomically and returns it. Calls `nvshmem_<T>_atomic_fetch`.
///
/// # Safety
/// `src` is a symmetric `T`, `pe < n_pes()`, and every concurrent access to it at `pe` is
/// an NVSHMEM atomic.
#[cfg(target_arch = "nvptx64")]
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
#[cfg(target_arch = "nvptx64")]
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
#[cfg(target_arch = "nvptx64")]
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
#[cfg(target_arch = "nvptx64")]
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
#[cfg(target_arch = "nvptx64")]
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
#[cfg(target_arch = "nvptx64")]
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
#[cfg(target_arch = "nvptx64")]
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
#[cfg(target_arch = "nvptx64")]
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
#[cfg(target_arch = "nvptx64")]
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
#[cfg(target_arch = "nvptx64")]
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
#[cfg(target_arch = "nvptx64")]
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
#[cfg(target_arch = "nvptx64")]
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
#[cfg(target_arch = "nvptx64")]
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
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub unsafe fn atomic_xor<T: AtomicElement>(dest: Symmetric<T>, value: T, pe: u32) {
    // SAFETY: the caller's promises.
    unsafe { T::xor(dest.as_ptr(), value, c_pe(pe)) }
}
