//! Waiting on symmetric variables that other PEs write: [`wait_until`] one, [`wait_until_all`]
//! / [`wait_until_any`] / [`wait_until_some`] of an array, and [`test`](fn@test) without
//! waiting.
//!
//! The comparison is `ivar cmp value` ([`Cmp`]). A wait returns after an observation that
//! synchronizes with the write it observed: what the writing PE delivered before that write
//! (a [`put_signal`](super::put_signal)'s data, puts ordered before it by
//! [`fence`](super::fence)) is visible to the calling thread. Waits spin; a value that never
//! comes hangs the kernel.

use crate::backend::nvshmem::{wait_elements, Wait};

/// A comparison of a symmetric variable with a value (`nvshmemx_cmp_type_t`; the values of
/// `NVSHMEM_CMP_*` in device_host_transport/nvshmem_constants.h, which are not in the order
/// of the names below).
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cmp {
    /// `ivar == value` (`NVSHMEM_CMP_EQ`).
    Eq = 0,
    /// `ivar != value` (`NVSHMEM_CMP_NE`).
    Ne = 1,
    /// `ivar > value` (`NVSHMEM_CMP_GT`).
    Gt = 2,
    /// `ivar >= value` (`NVSHMEM_CMP_GE`).
    Ge = 5,
    /// `ivar < value` (`NVSHMEM_CMP_LT`).
    Lt = 4,
    /// `ivar <= value` (`NVSHMEM_CMP_LE`).
    Le = 3,
}

/// A type NVSHMEM can wait on: `u16 i16 u32 i32 u64 i64`. The symbols use NVSHMEM's
/// fixed-width names (`wait_until::<u64>` calls `nvshmem_uint64_wait_until`) except the
/// 16-bit types, for which NVSHMEM 3.4.5 has only the C names: `i16` is `short`
/// (`nvshmem_short_wait_until`), `u16` is `ushort`. Sealed.
pub trait WaitElement: Wait + Copy {}

// One row per type with each operation's NVSHMEM symbol spelled out (greppable).
wait_elements! {
    u16 {
        wait_until => nvshmem_ushort_wait_until, wait_until_all => nvshmem_ushort_wait_until_all,
        wait_until_any => nvshmem_ushort_wait_until_any,
        wait_until_some => nvshmem_ushort_wait_until_some, test => nvshmem_ushort_test;
    }
    i16 {
        wait_until => nvshmem_short_wait_until, wait_until_all => nvshmem_short_wait_until_all,
        wait_until_any => nvshmem_short_wait_until_any,
        wait_until_some => nvshmem_short_wait_until_some, test => nvshmem_short_test;
    }
    u32 {
        wait_until => nvshmem_uint32_wait_until, wait_until_all => nvshmem_uint32_wait_until_all,
        wait_until_any => nvshmem_uint32_wait_until_any,
        wait_until_some => nvshmem_uint32_wait_until_some, test => nvshmem_uint32_test;
    }
    i32 {
        wait_until => nvshmem_int32_wait_until, wait_until_all => nvshmem_int32_wait_until_all,
        wait_until_any => nvshmem_int32_wait_until_any,
        wait_until_some => nvshmem_int32_wait_until_some, test => nvshmem_int32_test;
    }
    u64 {
        wait_until => nvshmem_uint64_wait_until, wait_until_all => nvshmem_uint64_wait_until_all,
        wait_until_any => nvshmem_uint64_wait_until_any,
        wait_until_some => nvshmem_uint64_wait_until_some, test => nvshmem_uint64_test;
    }
    i64 {
        wait_until => nvshmem_int64_wait_until, wait_until_all => nvshmem_int64_wait_until_all,
        wait_until_any => nvshmem_int64_wait_until_any,
        wait_until_some => nvshmem_int64_wait_until_some, test => nvshmem_int64_test;
    }
}

gpu_only! {
    use super::Symmetric;
    use core::ffi::c_int;

    /// Waits until this PE's `ivar` compares `cmp` to `value` (`ivar cmp value`). Calls
    /// `nvshmem_<T>_wait_until` ([`WaitElement`] names `<T>`).
    ///
    /// Returns after an observation that synchronizes with the write it saw (see the
    /// [module](self)): data delivered before that write is visible to the calling thread.
    ///
    /// # Safety
    /// `ivar` is a symmetric `T` that other PEs write only through NVSHMEM (puts, `p`, atomics,
    /// signals) while anyone waits.
    #[inline(always)]
    pub unsafe fn wait_until<T: WaitElement>(ivar: Symmetric<T>, cmp: Cmp, value: T) {
        // SAFETY: the caller's promises.
        unsafe { T::wait_until(ivar.as_ptr(), cmp as c_int, value) }
    }

    /// Waits until every `ivars[i]` (`i < count`) whose `status[i]` is 0 compares `cmp` to
    /// `value`; a null `status` waits on all. Calls `nvshmem_<T>_wait_until_all`.
    ///
    /// # Safety
    /// `ivars` is a symmetric array of `count` elements written only through NVSHMEM while
    /// anyone waits; `status` is null or readable for `count` `i32`s.
    #[inline(always)]
    pub unsafe fn wait_until_all<T: WaitElement>(
        ivars: Symmetric<T>,
        count: usize,
        status: *const i32,
        cmp: Cmp,
        value: T,
    ) {
        // SAFETY: the caller's promises.
        unsafe { T::wait_until_all(ivars.as_ptr(), count, status, cmp as c_int, value) }
    }

    /// Waits until one of the `ivars[i]` (`i < count`) whose `status[i]` is 0 compares `cmp` to
    /// `value` and returns its index; `None` when there is none to wait on (`count == 0`, or every
    /// `status[i]` is non-zero: NVSHMEM's `SIZE_MAX`). A null `status` includes all. Calls
    /// `nvshmem_<T>_wait_until_any`.
    ///
    /// # Safety
    /// As [`wait_until_all`].
    #[inline(always)]
    pub unsafe fn wait_until_any<T: WaitElement>(
        ivars: Symmetric<T>,
        count: usize,
        status: *const i32,
        cmp: Cmp,
        value: T,
    ) -> Option<usize> {
        // SAFETY: the caller's promises.
        let i = unsafe { T::wait_until_any(ivars.as_ptr(), count, status, cmp as c_int, value) };
        // NVSHMEM returns SIZE_MAX for an empty wait set (device/nvshmem_defines.h).
        if i == usize::MAX {
            None
        } else {
            Some(i)
        }
    }

    /// Waits until at least one of the `ivars[i]` (`i < count`) whose `status[i]` is 0 compares
    /// `cmp` to `value`, writes the indices of all that do to `indices[..n]` and returns `n` (0
    /// when there is none to wait on). A null `status` includes all. Calls
    /// `nvshmem_<T>_wait_until_some`.
    ///
    /// # Safety
    /// As [`wait_until_all`], and `indices` is writable for `count` `usize`s.
    #[inline(always)]
    pub unsafe fn wait_until_some<T: WaitElement>(
        ivars: Symmetric<T>,
        count: usize,
        indices: *mut usize,
        status: *const i32,
        cmp: Cmp,
        value: T,
    ) -> usize {
        // SAFETY: the caller's promises.
        unsafe { T::wait_until_some(ivars.as_ptr(), count, indices, status, cmp as c_int, value) }
    }

    /// Whether this PE's `ivar` compares `cmp` to `value` now, without waiting. When it returns
    /// `true`, the observation synchronizes with the write it saw, as a wait's does. Calls
    /// `nvshmem_<T>_test`.
    ///
    /// # Safety
    /// As [`wait_until`].
    #[inline(always)]
    pub unsafe fn test<T: WaitElement>(ivar: Symmetric<T>, cmp: Cmp, value: T) -> bool {
        // SAFETY: the caller's promises.
        unsafe { T::test(ivar.as_ptr(), cmp as c_int, value) != 0 }
    }
}
