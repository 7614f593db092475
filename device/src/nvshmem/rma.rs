//! One-sided data movement: [`put`], [`get`] (blocking), [`put_nbi`], [`get_nbi`] (completed
//! by [`quiet`](super::quiet)), one element with [`p`] and [`g`], and the `_warp` / `_block`
//! forms that a whole warp or block calls together to move one larger buffer.
//!
//! Every function is `unsafe`: it reads or writes another GPU's memory through an address
//! nothing on the device can check. The promises every function here makes its caller keep:
//! - the [`Symmetric<T>`](super::Symmetric) argument is a symmetric address with room for
//!   `count` elements on this PE and on `pe`, and the local pointer is valid for `count`
//!   elements (reads for the source, writes for the destination);
//! - `pe < n_pes()`;
//! - nothing else writes the destination, or reads a destination a get writes, until the
//!   operation is complete (a data race on either side is undefined, as for plain accesses).

use crate::backend::nvshmem::{rma_elements, Rma};

/// A type the data-movement functions move: `u8 u16 u32 u64 i8 i16 i32 i64 f32 f64`, NVSHMEM's
/// `uint8 uint16 uint32 uint64 int8 int16 int32 int64 float double` (the name in each
/// symbol: `put::<f32>` calls `nvshmem_float_put`, `put_warp::<i8>` calls
/// `nvshmemx_int8_put_warp`). Sealed.
pub trait Element: Rma + Copy {}

// One row per type: the Rust type, then each operation's NVSHMEM symbol, spelled out so that
// a symbol a profiler shows greps back to this table. One table for both targets, so the host
// has the same element types: its backend's `rma_elements!` reads only the types.
rma_elements! {
    u8 {
        copy:
            put => nvshmem_uint8_put,
            put_nbi => nvshmem_uint8_put_nbi,
            get => nvshmem_uint8_get,
            get_nbi => nvshmem_uint8_get_nbi,
            put_warp => nvshmemx_uint8_put_warp,
            put_block => nvshmemx_uint8_put_block,
            put_nbi_warp => nvshmemx_uint8_put_nbi_warp,
            put_nbi_block => nvshmemx_uint8_put_nbi_block,
            get_warp => nvshmemx_uint8_get_warp,
            get_block => nvshmemx_uint8_get_block,
            get_nbi_warp => nvshmemx_uint8_get_nbi_warp,
            get_nbi_block => nvshmemx_uint8_get_nbi_block;
        p => nvshmem_uint8_p; g => nvshmem_uint8_g;
        signal:
            put_signal => nvshmem_uint8_put_signal,
            put_signal_nbi => nvshmem_uint8_put_signal_nbi,
            put_signal_warp => nvshmemx_uint8_put_signal_warp,
            put_signal_block => nvshmemx_uint8_put_signal_block,
            put_signal_nbi_warp => nvshmemx_uint8_put_signal_nbi_warp,
            put_signal_nbi_block => nvshmemx_uint8_put_signal_nbi_block;
    }
    u16 {
        copy:
            put => nvshmem_uint16_put,
            put_nbi => nvshmem_uint16_put_nbi,
            get => nvshmem_uint16_get,
            get_nbi => nvshmem_uint16_get_nbi,
            put_warp => nvshmemx_uint16_put_warp,
            put_block => nvshmemx_uint16_put_block,
            put_nbi_warp => nvshmemx_uint16_put_nbi_warp,
            put_nbi_block => nvshmemx_uint16_put_nbi_block,
            get_warp => nvshmemx_uint16_get_warp,
            get_block => nvshmemx_uint16_get_block,
            get_nbi_warp => nvshmemx_uint16_get_nbi_warp,
            get_nbi_block => nvshmemx_uint16_get_nbi_block;
        p => nvshmem_uint16_p; g => nvshmem_uint16_g;
        signal:
            put_signal => nvshmem_uint16_put_signal,
            put_signal_nbi => nvshmem_uint16_put_signal_nbi,
            put_signal_warp => nvshmemx_uint16_put_signal_warp,
            put_signal_block => nvshmemx_uint16_put_signal_block,
            put_signal_nbi_warp => nvshmemx_uint16_put_signal_nbi_warp,
            put_signal_nbi_block => nvshmemx_uint16_put_signal_nbi_block;
    }
    u32 {
        copy:
            put => nvshmem_uint32_put,
            put_nbi => nvshmem_uint32_put_nbi,
            get => nvshmem_uint32_get,
            get_nbi => nvshmem_uint32_get_nbi,
            put_warp => nvshmemx_uint32_put_warp,
            put_block => nvshmemx_uint32_put_block,
            put_nbi_warp => nvshmemx_uint32_put_nbi_warp,
            put_nbi_block => nvshmemx_uint32_put_nbi_block,
            get_warp => nvshmemx_uint32_get_warp,
            get_block => nvshmemx_uint32_get_block,
            get_nbi_warp => nvshmemx_uint32_get_nbi_warp,
            get_nbi_block => nvshmemx_uint32_get_nbi_block;
        p => nvshmem_uint32_p; g => nvshmem_uint32_g;
        signal:
            put_signal => nvshmem_uint32_put_signal,
            put_signal_nbi => nvshmem_uint32_put_signal_nbi,
            put_signal_warp => nvshmemx_uint32_put_signal_warp,
            put_signal_block => nvshmemx_uint32_put_signal_block,
            put_signal_nbi_warp => nvshmemx_uint32_put_signal_nbi_warp,
            put_signal_nbi_block => nvshmemx_uint32_put_signal_nbi_block;
    }
    u64 {
        copy:
            put => nvshmem_uint64_put,
            put_nbi => nvshmem_uint64_put_nbi,
            get => nvshmem_uint64_get,
            get_nbi => nvshmem_uint64_get_nbi,
            put_warp => nvshmemx_uint64_put_warp,
            put_block => nvshmemx_uint64_put_block,
            put_nbi_warp => nvshmemx_uint64_put_nbi_warp,
            put_nbi_block => nvshmemx_uint64_put_nbi_block,
            get_warp => nvshmemx_uint64_get_warp,
            get_block => nvshmemx_uint64_get_block,
            get_nbi_warp => nvshmemx_uint64_get_nbi_warp,
            get_nbi_block => nvshmemx_uint64_get_nbi_block;
        p => nvshmem_uint64_p; g => nvshmem_uint64_g;
        signal:
            put_signal => nvshmem_uint64_put_signal,
            put_signal_nbi => nvshmem_uint64_put_signal_nbi,
            put_signal_warp => nvshmemx_uint64_put_signal_warp,
            put_signal_block => nvshmemx_uint64_put_signal_block,
            put_signal_nbi_warp => nvshmemx_uint64_put_signal_nbi_warp,
            put_signal_nbi_block => nvshmemx_uint64_put_signal_nbi_block;
    }
    i8 {
        copy:
            put => nvshmem_int8_put,
            put_nbi => nvshmem_int8_put_nbi,
            get => nvshmem_int8_get,
            get_nbi => nvshmem_int8_get_nbi,
            put_warp => nvshmemx_int8_put_warp,
            put_block => nvshmemx_int8_put_block,
            put_nbi_warp => nvshmemx_int8_put_nbi_warp,
            put_nbi_block => nvshmemx_int8_put_nbi_block,
            get_warp => nvshmemx_int8_get_warp,
            get_block => nvshmemx_int8_get_block,
            get_nbi_warp => nvshmemx_int8_get_nbi_warp,
            get_nbi_block => nvshmemx_int8_get_nbi_block;
        p => nvshmem_int8_p; g => nvshmem_int8_g;
        signal:
            put_signal => nvshmem_int8_put_signal,
            put_signal_nbi => nvshmem_int8_put_signal_nbi,
            put_signal_warp => nvshmemx_int8_put_signal_warp,
            put_signal_block => nvshmemx_int8_put_signal_block,
            put_signal_nbi_warp => nvshmemx_int8_put_signal_nbi_warp,
            put_signal_nbi_block => nvshmemx_int8_put_signal_nbi_block;
    }
    i16 {
        copy:
            put => nvshmem_int16_put,
            put_nbi => nvshmem_int16_put_nbi,
            get => nvshmem_int16_get,
            get_nbi => nvshmem_int16_get_nbi,
            put_warp => nvshmemx_int16_put_warp,
            put_block => nvshmemx_int16_put_block,
            put_nbi_warp => nvshmemx_int16_put_nbi_warp,
            put_nbi_block => nvshmemx_int16_put_nbi_block,
            get_warp => nvshmemx_int16_get_warp,
            get_block => nvshmemx_int16_get_block,
            get_nbi_warp => nvshmemx_int16_get_nbi_warp,
            get_nbi_block => nvshmemx_int16_get_nbi_block;
        p => nvshmem_int16_p; g => nvshmem_int16_g;
        signal:
            put_signal => nvshmem_int16_put_signal,
            put_signal_nbi => nvshmem_int16_put_signal_nbi,
            put_signal_warp => nvshmemx_int16_put_signal_warp,
            put_signal_block => nvshmemx_int16_put_signal_block,
            put_signal_nbi_warp => nvshmemx_int16_put_signal_nbi_warp,
            put_signal_nbi_block => nvshmemx_int16_put_signal_nbi_block;
    }
    i32 {
        copy:
            put => nvshmem_int32_put,
            put_nbi => nvshmem_int32_put_nbi,
            get => nvshmem_int32_get,
            get_nbi => nvshmem_int32_get_nbi,
            put_warp => nvshmemx_int32_put_warp,
            put_block => nvshmemx_int32_put_block,
            put_nbi_warp => nvshmemx_int32_put_nbi_warp,
            put_nbi_block => nvshmemx_int32_put_nbi_block,
            get_warp => nvshmemx_int32_get_warp,
            get_block => nvshmemx_int32_get_block,
            get_nbi_warp => nvshmemx_int32_get_nbi_warp,
            get_nbi_block => nvshmemx_int32_get_nbi_block;
        p => nvshmem_int32_p; g => nvshmem_int32_g;
        signal:
            put_signal => nvshmem_int32_put_signal,
            put_signal_nbi => nvshmem_int32_put_signal_nbi,
            put_signal_warp => nvshmemx_int32_put_signal_warp,
            put_signal_block => nvshmemx_int32_put_signal_block,
            put_signal_nbi_warp => nvshmemx_int32_put_signal_nbi_warp,
            put_signal_nbi_block => nvshmemx_int32_put_signal_nbi_block;
    }
    i64 {
        copy:
            put => nvshmem_int64_put,
            put_nbi => nvshmem_int64_put_nbi,
            get => nvshmem_int64_get,
            get_nbi => nvshmem_int64_get_nbi,
            put_warp => nvshmemx_int64_put_warp,
            put_block => nvshmemx_int64_put_block,
            put_nbi_warp => nvshmemx_int64_put_nbi_warp,
            put_nbi_block => nvshmemx_int64_put_nbi_block,
            get_warp => nvshmemx_int64_get_warp,
            get_block => nvshmemx_int64_get_block,
            get_nbi_warp => nvshmemx_int64_get_nbi_warp,
            get_nbi_block => nvshmemx_int64_get_nbi_block;
        p => nvshmem_int64_p; g => nvshmem_int64_g;
        signal:
            put_signal => nvshmem_int64_put_signal,
            put_signal_nbi => nvshmem_int64_put_signal_nbi,
            put_signal_warp => nvshmemx_int64_put_signal_warp,
            put_signal_block => nvshmemx_int64_put_signal_block,
            put_signal_nbi_warp => nvshmemx_int64_put_signal_nbi_warp,
            put_signal_nbi_block => nvshmemx_int64_put_signal_nbi_block;
    }
    f32 {
        copy:
            put => nvshmem_float_put,
            put_nbi => nvshmem_float_put_nbi,
            get => nvshmem_float_get,
            get_nbi => nvshmem_float_get_nbi,
            put_warp => nvshmemx_float_put_warp,
            put_block => nvshmemx_float_put_block,
            put_nbi_warp => nvshmemx_float_put_nbi_warp,
            put_nbi_block => nvshmemx_float_put_nbi_block,
            get_warp => nvshmemx_float_get_warp,
            get_block => nvshmemx_float_get_block,
            get_nbi_warp => nvshmemx_float_get_nbi_warp,
            get_nbi_block => nvshmemx_float_get_nbi_block;
        p => nvshmem_float_p; g => nvshmem_float_g;
        signal:
            put_signal => nvshmem_float_put_signal,
            put_signal_nbi => nvshmem_float_put_signal_nbi,
            put_signal_warp => nvshmemx_float_put_signal_warp,
            put_signal_block => nvshmemx_float_put_signal_block,
            put_signal_nbi_warp => nvshmemx_float_put_signal_nbi_warp,
            put_signal_nbi_block => nvshmemx_float_put_signal_nbi_block;
    }
    f64 {
        copy:
            put => nvshmem_double_put,
            put_nbi => nvshmem_double_put_nbi,
            get => nvshmem_double_get,
            get_nbi => nvshmem_double_get_nbi,
            put_warp => nvshmemx_double_put_warp,
            put_block => nvshmemx_double_put_block,
            put_nbi_warp => nvshmemx_double_put_nbi_warp,
            put_nbi_block => nvshmemx_double_put_nbi_block,
            get_warp => nvshmemx_double_get_warp,
            get_block => nvshmemx_double_get_block,
            get_nbi_warp => nvshmemx_double_get_nbi_warp,
            get_nbi_block => nvshmemx_double_get_nbi_block;
        p => nvshmem_double_p; g => nvshmem_double_g;
        signal:
            put_signal => nvshmem_double_put_signal,
            put_signal_nbi => nvshmem_double_put_signal_nbi,
            put_signal_warp => nvshmemx_double_put_signal_warp,
            put_signal_block => nvshmemx_double_put_signal_block,
            put_signal_nbi_warp => nvshmemx_double_put_signal_nbi_warp,
            put_signal_nbi_block => nvshmemx_double_put_signal_nbi_block;
    }
}

gpu_only! {
    use super::{c_pe, Symmetric};

    /// Copies `count` elements from this PE's `src` to `dest` on PE `pe`, and returns once `src`
    /// may be reused. Calls `nvshmem_<T>_put` ([`Element`] names `<T>`).
    ///
    /// The writes are the calling thread's; they are ordered with its later puts to `pe` by
    /// [`fence`](super::fence) and complete at `pe` after [`quiet`](super::quiet) (or use
    /// [`put_signal`](super::put_signal), whose signal is observed only after the data).
    ///
    /// # Safety
    /// The promises of the [module](self): `dest` symmetric with room for `count` elements,
    /// `src` readable for `count`, `pe < n_pes()`, no data race on `dest` at `pe`.
    #[inline(always)]
    pub unsafe fn put<T: Element>(dest: Symmetric<T>, src: *const T, count: usize, pe: u32) {
        // SAFETY: the caller's promises.
        unsafe { T::put(dest.as_ptr(), src, count, c_pe(pe)) }
    }

    /// [`put`] without waiting: returns at once; `src` must not change, and the data is not
    /// known to have left, until [`quiet`](super::quiet). Calls `nvshmem_<T>_put_nbi`.
    ///
    /// # Safety
    /// As [`put`], and `src` stays unmodified until the calling thread's next `quiet`.
    #[inline(always)]
    pub unsafe fn put_nbi<T: Element>(dest: Symmetric<T>, src: *const T, count: usize, pe: u32) {
        // SAFETY: the caller's promises.
        unsafe { T::put_nbi(dest.as_ptr(), src, count, c_pe(pe)) }
    }

    /// Copies `count` elements from `src` on PE `pe` into this PE's `dest`; when it returns the
    /// data is in `dest`, visible to the calling thread. Calls `nvshmem_<T>_get`.
    ///
    /// # Safety
    /// `src` symmetric with room for `count` elements, `dest` writable for `count`,
    /// `pe < n_pes()`, no data race on `src` at `pe` or on `dest`.
    #[inline(always)]
    pub unsafe fn get<T: Element>(dest: *mut T, src: Symmetric<T>, count: usize, pe: u32) {
        // SAFETY: the caller's promises.
        unsafe { T::get(dest, src.as_ptr(), count, c_pe(pe)) }
    }

    /// [`get`] without waiting: `dest` holds the data only after [`quiet`](super::quiet).
    /// Calls `nvshmem_<T>_get_nbi`.
    ///
    /// # Safety
    /// As [`get`], and nothing reads or writes `dest` until the calling thread's next `quiet`.
    #[inline(always)]
    pub unsafe fn get_nbi<T: Element>(dest: *mut T, src: Symmetric<T>, count: usize, pe: u32) {
        // SAFETY: the caller's promises.
        unsafe { T::get_nbi(dest, src.as_ptr(), count, c_pe(pe)) }
    }

    /// Writes one element to `dest` on PE `pe` (a [`put`] of one value, no source buffer).
    /// Calls `nvshmem_<T>_p`.
    ///
    /// # Safety
    /// `dest` symmetric, `pe < n_pes()`, no data race on `dest` at `pe`.
    #[inline(always)]
    pub unsafe fn p<T: Element>(dest: Symmetric<T>, value: T, pe: u32) {
        // SAFETY: the caller's promises.
        unsafe { T::p(dest.as_ptr(), value, c_pe(pe)) }
    }

    /// Reads one element of `src` on PE `pe` (a blocking [`get`] of one value). Calls
    /// `nvshmem_<T>_g`.
    ///
    /// # Safety
    /// `src` symmetric, `pe < n_pes()`, no data race on `src` at `pe`.
    #[inline(always)]
    pub unsafe fn g<T: Element>(src: Symmetric<T>, pe: u32) -> T {
        // SAFETY: the caller's promises.
        unsafe { T::g(src.as_ptr(), c_pe(pe)) }
    }

    /// [`put`] by a whole warp: the 32 lanes share the copy. Calls `nvshmemx_<T>_put_warp`.
    ///
    /// # Safety
    /// As [`put`], and every lane of the warp calls it, converged, with the same arguments
    /// (NVSHMEM synchronizes the warp inside; a missing lane hangs it).
    #[inline(always)]
    pub unsafe fn put_warp<T: Element>(dest: Symmetric<T>, src: *const T, count: usize, pe: u32) {
        // SAFETY: the caller's promises.
        unsafe { T::put_warp(dest.as_ptr(), src, count, c_pe(pe)) }
    }

    /// [`put`] by a whole block: its threads share the copy. Calls `nvshmemx_<T>_put_block`.
    ///
    /// # Safety
    /// As [`put`], and every thread of the block calls it with the same arguments (NVSHMEM
    /// synchronizes the block inside with `bar.sync`; a missing thread hangs it).
    #[inline(always)]
    pub unsafe fn put_block<T: Element>(dest: Symmetric<T>, src: *const T, count: usize, pe: u32) {
        // SAFETY: the caller's promises.
        unsafe { T::put_block(dest.as_ptr(), src, count, c_pe(pe)) }
    }

    /// [`put_nbi`] by a whole warp. Calls `nvshmemx_<T>_put_nbi_warp`.
    ///
    /// # Safety
    /// As [`put_nbi`], and as [`put_warp`]: every lane, converged, the same arguments.
    #[inline(always)]
    pub unsafe fn put_nbi_warp<T: Element>(
        dest: Symmetric<T>,
        src: *const T,
        count: usize,
        pe: u32,
    ) {
        // SAFETY: the caller's promises.
        unsafe { T::put_nbi_warp(dest.as_ptr(), src, count, c_pe(pe)) }
    }

    /// [`put_nbi`] by a whole block. Calls `nvshmemx_<T>_put_nbi_block`.
    ///
    /// # Safety
    /// As [`put_nbi`], and as [`put_block`]: every thread of the block, the same arguments.
    #[inline(always)]
    pub unsafe fn put_nbi_block<T: Element>(
        dest: Symmetric<T>,
        src: *const T,
        count: usize,
        pe: u32,
    ) {
        // SAFETY: the caller's promises.
        unsafe { T::put_nbi_block(dest.as_ptr(), src, count, c_pe(pe)) }
    }

    /// [`get`] by a whole warp: when it returns, `dest` holds the data for every lane. Calls
    /// `nvshmemx_<T>_get_warp`.
    ///
    /// # Safety
    /// As [`get`], and every lane of the warp calls it, converged, with the same arguments.
    #[inline(always)]
    pub unsafe fn get_warp<T: Element>(dest: *mut T, src: Symmetric<T>, count: usize, pe: u32) {
        // SAFETY: the caller's promises.
        unsafe { T::get_warp(dest, src.as_ptr(), count, c_pe(pe)) }
    }

    /// [`get`] by a whole block. Calls `nvshmemx_<T>_get_block`.
    ///
    /// # Safety
    /// As [`get`], and every thread of the block calls it with the same arguments.
    #[inline(always)]
    pub unsafe fn get_block<T: Element>(dest: *mut T, src: Symmetric<T>, count: usize, pe: u32) {
        // SAFETY: the caller's promises.
        unsafe { T::get_block(dest, src.as_ptr(), count, c_pe(pe)) }
    }

    /// [`get_nbi`] by a whole warp. Calls `nvshmemx_<T>_get_nbi_warp`.
    ///
    /// # Safety
    /// As [`get_nbi`], and every lane of the warp calls it, converged, with the same arguments.
    #[inline(always)]
    pub unsafe fn get_nbi_warp<T: Element>(dest: *mut T, src: Symmetric<T>, count: usize, pe: u32) {
        // SAFETY: the caller's promises.
        unsafe { T::get_nbi_warp(dest, src.as_ptr(), count, c_pe(pe)) }
    }

    /// [`get_nbi`] by a whole block. Calls `nvshmemx_<T>_get_nbi_block`.
    ///
    /// # Safety
    /// As [`get_nbi`], and every thread of the block calls it with the same arguments.
    #[inline(always)]
    pub unsafe fn get_nbi_block<T: Element>(
        dest: *mut T,
        src: Symmetric<T>,
        count: usize,
        pe: u32,
    ) {
        // SAFETY: the caller's promises.
        unsafe { T::get_nbi_block(dest, src.as_ptr(), count, c_pe(pe)) }
    }
}
