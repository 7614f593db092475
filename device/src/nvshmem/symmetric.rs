//! [`Symmetric<T>`]: an address in NVSHMEM's symmetric heap, the same offset on every PE.

use core::fmt;

/// An address in NVSHMEM's symmetric heap: this PE's copy of an object that every PE
/// allocated with the same collective `nvshmem_malloc` (on the host,
/// `ptx_sync_host::nvshmem::SymmetricBuffer<T>`). The remote operations take it and name the
/// peer by PE number; NVSHMEM finds the peer's copy at the same offset.
///
/// `#[repr(transparent)]` over `*mut T`: the same ABI as a pointer, so it is a kernel
/// parameter that the host passes as the plain device address of its own copy. Nothing on the
/// device can check that an address is symmetric, so the functions that access memory through
/// it are `unsafe`, and their first promise is that it is: an address of the symmetric heap
/// with room for what the call reads or writes, on this PE and on the target PE.
#[repr(transparent)]
pub struct Symmetric<T> {
    ptr: *mut T,
}

// By hand: the derives would require `T: Copy` / `T: Debug`, and this is a pointer.
impl<T> Clone for Symmetric<T> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Symmetric<T> {}

impl<T> fmt::Debug for Symmetric<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Symmetric").field(&self.ptr).finish()
    }
}

impl<T> Symmetric<T> {
    /// Wraps this PE's address of a symmetric object.
    ///
    /// # Safety
    /// `ptr` is an address in NVSHMEM's symmetric heap (returned by `nvshmem_malloc` or inside
    /// such an allocation), of an object every PE allocated alike: the remote operations reach
    /// the peer's memory at the same offset.
    #[inline(always)]
    pub const unsafe fn from_ptr(ptr: *mut T) -> Self {
        Self { ptr }
    }

    /// This PE's copy: an ordinary device pointer (plain loads and stores reach local memory).
    #[inline(always)]
    pub const fn as_ptr(self) -> *mut T {
        self.ptr
    }

    /// The object `count` elements further on (`pointer::add`): element `count` of a
    /// symmetric array.
    ///
    /// # Safety
    /// As `pointer::add`: the result stays inside the same symmetric allocation (or one past
    /// its end).
    #[inline(always)]
    pub const unsafe fn add(self, count: usize) -> Self {
        // SAFETY: the caller's promise, the same as `pointer::add`'s.
        Self {
            ptr: unsafe { self.ptr.add(count) },
        }
    }

    gpu_only! {
        /// A pointer that reaches PE `pe`'s copy with ordinary loads and stores, or `None` where
        /// NVSHMEM cannot map it: a peer on another node, a peer without peer-to-peer access, an
        /// address outside the symmetric heap, or `pe >= n_pes()`. Calls `nvshmem_ptr` (after
        /// `nvshmem_n_pes`: NVSHMEM indexes its peer table with `pe` unchecked).
        ///
        /// Accesses through the pointer are ordinary PTX accesses to the peer's memory: use
        /// `.sys`-scoped atomics and fences on it ([`crate::scope::Sys`]), as for any memory another
        /// GPU touches. For `pe == my_pe()` it is [`as_ptr`](Self::as_ptr).
        #[inline(always)]
        pub fn ptr(self, pe: u32) -> Option<*mut T> {
            extern "C" {
                fn nvshmem_ptr(
                    ptr: *const core::ffi::c_void,
                    pe: core::ffi::c_int,
                ) -> *mut core::ffi::c_void;
            }
            if pe >= super::n_pes() {
                return None;
            }
            // SAFETY: `pe` is a PE of the job; NVSHMEM returns null for an address outside its
            // heap rather than reading through it.
            let p = unsafe { nvshmem_ptr(self.ptr.cast_const().cast(), super::c_pe(pe)) };
            if p.is_null() {
                None
            } else {
                Some(p.cast())
            }
        }
    }
}
