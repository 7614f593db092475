//! NVSHMEM's per-type symbols on the GPU: the sealed traits behind `nvshmem::Element`,
//! `AtomicElement` and `WaitElement`, each method one `extern "C"` function of NVSHMEM's
//! device library, and the macros that implement them from the tables in
//! `nvshmem/{rma,atomic,wait}.rs`.
//!
//! The macros spell `core::ffi::c_int` out: a macro's paths resolve where it is invoked, in
//! modules that exist on the host too.

use core::ffi::c_int;

/// The per-type NVSHMEM symbols of [`Element`](crate::nvshmem::Element), stamped by
/// `rma_elements!`. C signatures from device/nvshmem_defines.h (`nvshmem_<T>_put(T *dest,
/// const T *source, size_t nelems, int pe)`, `_p(T *dest, const T value, int pe)`,
/// `_g(const T *source, int pe)`, `_put_signal(T *dest, const T *source, size_t nelems,
/// uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)`) and device/nvshmemx_defines.h
/// (the `_warp` / `_block` forms: the same parameters). `get` has `put`'s shape: the local
/// destination first.
pub trait Rma: Sized {
    unsafe fn put(dest: *mut Self, source: *const Self, nelems: usize, pe: c_int);
    unsafe fn put_nbi(dest: *mut Self, source: *const Self, nelems: usize, pe: c_int);
    unsafe fn get(dest: *mut Self, source: *const Self, nelems: usize, pe: c_int);
    unsafe fn get_nbi(dest: *mut Self, source: *const Self, nelems: usize, pe: c_int);
    unsafe fn put_warp(dest: *mut Self, source: *const Self, nelems: usize, pe: c_int);
    unsafe fn put_block(dest: *mut Self, source: *const Self, nelems: usize, pe: c_int);
    unsafe fn put_nbi_warp(dest: *mut Self, source: *const Self, nelems: usize, pe: c_int);
    unsafe fn put_nbi_block(dest: *mut Self, source: *const Self, nelems: usize, pe: c_int);
    unsafe fn get_warp(dest: *mut Self, source: *const Self, nelems: usize, pe: c_int);
    unsafe fn get_block(dest: *mut Self, source: *const Self, nelems: usize, pe: c_int);
    unsafe fn get_nbi_warp(dest: *mut Self, source: *const Self, nelems: usize, pe: c_int);
    unsafe fn get_nbi_block(dest: *mut Self, source: *const Self, nelems: usize, pe: c_int);
    unsafe fn p(dest: *mut Self, value: Self, pe: c_int);
    unsafe fn g(source: *const Self, pe: c_int) -> Self;
    unsafe fn put_signal(
        dest: *mut Self,
        source: *const Self,
        nelems: usize,
        sig_addr: *mut u64,
        signal: u64,
        sig_op: c_int,
        pe: c_int,
    );
    unsafe fn put_signal_nbi(
        dest: *mut Self,
        source: *const Self,
        nelems: usize,
        sig_addr: *mut u64,
        signal: u64,
        sig_op: c_int,
        pe: c_int,
    );
    unsafe fn put_signal_warp(
        dest: *mut Self,
        source: *const Self,
        nelems: usize,
        sig_addr: *mut u64,
        signal: u64,
        sig_op: c_int,
        pe: c_int,
    );
    unsafe fn put_signal_block(
        dest: *mut Self,
        source: *const Self,
        nelems: usize,
        sig_addr: *mut u64,
        signal: u64,
        sig_op: c_int,
        pe: c_int,
    );
    unsafe fn put_signal_nbi_warp(
        dest: *mut Self,
        source: *const Self,
        nelems: usize,
        sig_addr: *mut u64,
        signal: u64,
        sig_op: c_int,
        pe: c_int,
    );
    unsafe fn put_signal_nbi_block(
        dest: *mut Self,
        source: *const Self,
        nelems: usize,
        sig_addr: *mut u64,
        signal: u64,
        sig_op: c_int,
        pe: c_int,
    );
}

/// Implements [`Rma`] and `Element` for each row of the table in `nvshmem/rma.rs`: every
/// method declares its row's symbol and calls it.
macro_rules! rma_elements {
    ($(
        $t:ty {
            copy: $($copy:ident => $copy_sym:ident),+;
            p => $p_sym:ident; g => $g_sym:ident;
            signal: $($sig:ident => $sig_sym:ident),+;
        }
    )+) => {$(
        impl $crate::nvshmem::Element for $t {}
        impl $crate::backend::nvshmem::Rma for $t {
            $(
                #[inline(always)]
                unsafe fn $copy(
                    dest: *mut $t,
                    source: *const $t,
                    nelems: usize,
                    pe: core::ffi::c_int,
                ) {
                    extern "C" {
                        fn $copy_sym(
                            dest: *mut $t,
                            source: *const $t,
                            nelems: usize,
                            pe: core::ffi::c_int,
                        );
                    }
                    // SAFETY: the public function's caller keeps its promises.
                    unsafe { $copy_sym(dest, source, nelems, pe) }
                }
            )+
            #[inline(always)]
            unsafe fn p(dest: *mut $t, value: $t, pe: core::ffi::c_int) {
                extern "C" {
                    fn $p_sym(dest: *mut $t, value: $t, pe: core::ffi::c_int);
                }
                // SAFETY: the public function's caller keeps its promises.
                unsafe { $p_sym(dest, value, pe) }
            }
            #[inline(always)]
            unsafe fn g(source: *const $t, pe: core::ffi::c_int) -> $t {
                extern "C" {
                    fn $g_sym(source: *const $t, pe: core::ffi::c_int) -> $t;
                }
                // SAFETY: the public function's caller keeps its promises.
                unsafe { $g_sym(source, pe) }
            }
            $(
                #[inline(always)]
                unsafe fn $sig(
                    dest: *mut $t,
                    source: *const $t,
                    nelems: usize,
                    sig_addr: *mut u64,
                    signal: u64,
                    sig_op: core::ffi::c_int,
                    pe: core::ffi::c_int,
                ) {
                    extern "C" {
                        fn $sig_sym(
                            dest: *mut $t,
                            source: *const $t,
                            nelems: usize,
                            sig_addr: *mut u64,
                            signal: u64,
                            sig_op: core::ffi::c_int,
                            pe: core::ffi::c_int,
                        );
                    }
                    // SAFETY: the public function's caller keeps its promises.
                    unsafe { $sig_sym(dest, source, nelems, sig_addr, signal, sig_op, pe) }
                }
            )+
        }
    )+};
}
pub(crate) use rma_elements;

/// The per-type symbols of [`AtomicElement`](crate::nvshmem::AtomicElement), stamped by
/// `atomic_elements!`. C signatures from device/nvshmem_defines.h: `T
/// nvshmem_<T>_atomic_fetch(const T *source, int pe)`, `void _set / _add / _and / _or /
/// _xor(T *dest, T value, int pe)`, `T _swap / _fetch_add / _fetch_and / _fetch_or /
/// _fetch_xor(T *dest, T value, int pe)`, `T _compare_swap(T *dest, T cond, T value, int
/// pe)`, `T _fetch_inc(T *dest, int pe)`, `void _inc(T *dest, int pe)`.
pub trait Amo: Sized {
    unsafe fn fetch(source: *const Self, pe: c_int) -> Self;
    unsafe fn set(dest: *mut Self, value: Self, pe: c_int);
    unsafe fn add(dest: *mut Self, value: Self, pe: c_int);
    unsafe fn and(dest: *mut Self, value: Self, pe: c_int);
    unsafe fn or(dest: *mut Self, value: Self, pe: c_int);
    unsafe fn xor(dest: *mut Self, value: Self, pe: c_int);
    unsafe fn swap(dest: *mut Self, value: Self, pe: c_int) -> Self;
    unsafe fn fetch_add(dest: *mut Self, value: Self, pe: c_int) -> Self;
    unsafe fn fetch_and(dest: *mut Self, value: Self, pe: c_int) -> Self;
    unsafe fn fetch_or(dest: *mut Self, value: Self, pe: c_int) -> Self;
    unsafe fn fetch_xor(dest: *mut Self, value: Self, pe: c_int) -> Self;
    unsafe fn compare_swap(dest: *mut Self, cond: Self, value: Self, pe: c_int) -> Self;
    unsafe fn fetch_inc(dest: *mut Self, pe: c_int) -> Self;
    unsafe fn inc(dest: *mut Self, pe: c_int);
}

/// Implements [`Amo`] and `AtomicElement` for each row of the table in `nvshmem/atomic.rs`.
macro_rules! atomic_elements {
    ($(
        $t:ty {
            fetch => $fetch:ident;
            update: $($update:ident => $update_sym:ident),+;
            fetching: $($fetching:ident => $fetching_sym:ident),+;
            compare_swap => $cas:ident; fetch_inc => $fetch_inc:ident; inc => $inc:ident;
        }
    )+) => {$(
        impl $crate::nvshmem::AtomicElement for $t {}
        impl $crate::backend::nvshmem::Amo for $t {
            #[inline(always)]
            unsafe fn fetch(source: *const $t, pe: core::ffi::c_int) -> $t {
                extern "C" {
                    fn $fetch(source: *const $t, pe: core::ffi::c_int) -> $t;
                }
                // SAFETY: the public function's caller keeps its promises.
                unsafe { $fetch(source, pe) }
            }
            $(
                #[inline(always)]
                unsafe fn $update(dest: *mut $t, value: $t, pe: core::ffi::c_int) {
                    extern "C" {
                        fn $update_sym(dest: *mut $t, value: $t, pe: core::ffi::c_int);
                    }
                    // SAFETY: the public function's caller keeps its promises.
                    unsafe { $update_sym(dest, value, pe) }
                }
            )+
            $(
                #[inline(always)]
                unsafe fn $fetching(dest: *mut $t, value: $t, pe: core::ffi::c_int) -> $t {
                    extern "C" {
                        fn $fetching_sym(dest: *mut $t, value: $t, pe: core::ffi::c_int) -> $t;
                    }
                    // SAFETY: the public function's caller keeps its promises.
                    unsafe { $fetching_sym(dest, value, pe) }
                }
            )+
            #[inline(always)]
            unsafe fn compare_swap(dest: *mut $t, cond: $t, value: $t, pe: core::ffi::c_int) -> $t {
                extern "C" {
                    fn $cas(dest: *mut $t, cond: $t, value: $t, pe: core::ffi::c_int) -> $t;
                }
                // SAFETY: the public function's caller keeps its promises.
                unsafe { $cas(dest, cond, value, pe) }
            }
            #[inline(always)]
            unsafe fn fetch_inc(dest: *mut $t, pe: core::ffi::c_int) -> $t {
                extern "C" {
                    fn $fetch_inc(dest: *mut $t, pe: core::ffi::c_int) -> $t;
                }
                // SAFETY: the public function's caller keeps its promises.
                unsafe { $fetch_inc(dest, pe) }
            }
            #[inline(always)]
            unsafe fn inc(dest: *mut $t, pe: core::ffi::c_int) {
                extern "C" {
                    fn $inc(dest: *mut $t, pe: core::ffi::c_int);
                }
                // SAFETY: the public function's caller keeps its promises.
                unsafe { $inc(dest, pe) }
            }
        }
    )+};
}
pub(crate) use atomic_elements;

/// The per-type symbols of [`WaitElement`](crate::nvshmem::WaitElement), stamped by
/// `wait_elements!`. C signatures from device/nvshmem_defines.h: `void
/// nvshmem_<T>_wait_until(T *ivar, int cmp, T cmp_value)`, `void _wait_until_all(T *ivars,
/// size_t nelems, const int *status, int cmp, T cmp_value)`, `size_t _wait_until_any(` the
/// same `)`, `size_t _wait_until_some(T *ivars, size_t nelems, size_t *indices, const int
/// *status, int cmp, T cmp_value)`, `int _test(T *ivar, int cmp, T cmp_value)`.
pub trait Wait: Sized {
    unsafe fn wait_until(ivar: *mut Self, cmp: c_int, value: Self);
    unsafe fn wait_until_all(
        ivars: *mut Self,
        nelems: usize,
        status: *const c_int,
        cmp: c_int,
        value: Self,
    );
    unsafe fn wait_until_any(
        ivars: *mut Self,
        nelems: usize,
        status: *const c_int,
        cmp: c_int,
        value: Self,
    ) -> usize;
    unsafe fn wait_until_some(
        ivars: *mut Self,
        nelems: usize,
        indices: *mut usize,
        status: *const c_int,
        cmp: c_int,
        value: Self,
    ) -> usize;
    unsafe fn test(ivar: *mut Self, cmp: c_int, value: Self) -> c_int;
}

/// Implements [`Wait`] and `WaitElement` for each row of the table in `nvshmem/wait.rs`.
macro_rules! wait_elements {
    ($(
        $t:ty {
            wait_until => $wait:ident, wait_until_all => $all:ident,
            wait_until_any => $any:ident, wait_until_some => $some:ident, test => $test:ident;
        }
    )+) => {$(
        impl $crate::nvshmem::WaitElement for $t {}
        impl $crate::backend::nvshmem::Wait for $t {
            #[inline(always)]
            unsafe fn wait_until(ivar: *mut $t, cmp: core::ffi::c_int, value: $t) {
                extern "C" {
                    fn $wait(ivar: *mut $t, cmp: core::ffi::c_int, cmp_value: $t);
                }
                // SAFETY: the public function's caller keeps its promises.
                unsafe { $wait(ivar, cmp, value) }
            }
            #[inline(always)]
            unsafe fn wait_until_all(
                ivars: *mut $t,
                nelems: usize,
                status: *const core::ffi::c_int,
                cmp: core::ffi::c_int,
                value: $t,
            ) {
                extern "C" {
                    fn $all(
                        ivars: *mut $t,
                        nelems: usize,
                        status: *const core::ffi::c_int,
                        cmp: core::ffi::c_int,
                        cmp_value: $t,
                    );
                }
                // SAFETY: the public function's caller keeps its promises.
                unsafe { $all(ivars, nelems, status, cmp, value) }
            }
            #[inline(always)]
            unsafe fn wait_until_any(
                ivars: *mut $t,
                nelems: usize,
                status: *const core::ffi::c_int,
                cmp: core::ffi::c_int,
                value: $t,
            ) -> usize {
                extern "C" {
                    fn $any(
                        ivars: *mut $t,
                        nelems: usize,
                        status: *const core::ffi::c_int,
                        cmp: core::ffi::c_int,
                        cmp_value: $t,
                    ) -> usize;
                }
                // SAFETY: the public function's caller keeps its promises.
                unsafe { $any(ivars, nelems, status, cmp, value) }
            }
            #[inline(always)]
            unsafe fn wait_until_some(
                ivars: *mut $t,
                nelems: usize,
                indices: *mut usize,
                status: *const core::ffi::c_int,
                cmp: core::ffi::c_int,
                value: $t,
            ) -> usize {
                extern "C" {
                    fn $some(
                        ivars: *mut $t,
                        nelems: usize,
                        indices: *mut usize,
                        status: *const core::ffi::c_int,
                        cmp: core::ffi::c_int,
                        cmp_value: $t,
                    ) -> usize;
                }
                // SAFETY: the public function's caller keeps its promises.
                unsafe { $some(ivars, nelems, indices, status, cmp, value) }
            }
            #[inline(always)]
            unsafe fn test(ivar: *mut $t, cmp: core::ffi::c_int, value: $t) -> core::ffi::c_int {
                extern "C" {
                    fn $test(
                        ivar: *mut $t,
                        cmp: core::ffi::c_int,
                        cmp_value: $t,
                    ) -> core::ffi::c_int;
                }
                // SAFETY: the public function's caller keeps its promises.
                unsafe { $test(ivar, cmp, value) }
            }
        }
    )+};
}
pub(crate) use wait_elements;
