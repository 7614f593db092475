//! A `Global<T>` handle's address: the `.global` window's 64-bit address, and its conversions
//! to and from the generic window.

use super::address_space::{in_space, SpaceKind};
use core::marker::PhantomData;

const NOT_GLOBAL: &core::ffi::CStr =
    c"ptx-sync: Global::from_generic: the pointer is not in global memory\n";

pub(crate) struct GlobalAddr<T> {
    addr: u64,
    _t: PhantomData<*mut T>,
}

impl<T> Clone for GlobalAddr<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for GlobalAddr<T> {}

impl<T> GlobalAddr<T> {
    /// `cvta.to.global.u64`, after `isspacep.global` in debug builds.
    ///
    /// # Safety
    /// `p` points into global memory.
    #[inline(always)]
    pub(crate) unsafe fn from_generic(p: *mut T) -> GlobalAddr<T> {
        if cfg!(debug_assertions) && !in_space(p as *const u8, SpaceKind::Global) {
            crate::debug::trap(NOT_GLOBAL);
        }
        let a: u64;
        // SAFETY: computes an address; reads no memory (`readonly`: the operand is a
        // pointer, only converted).
        unsafe {
            core::arch::asm!("cvta.to.global.u64 {a}, {p};", a = out(reg64) a, p = in(reg64) p,
                             options(nostack, readonly, pure))
        };
        GlobalAddr {
            addr: a,
            _t: PhantomData,
        }
    }

    #[inline(always)]
    pub(crate) fn add(self, n: usize) -> GlobalAddr<T> {
        GlobalAddr {
            addr: self
                .addr
                .wrapping_add((n * core::mem::size_of::<T>()) as u64),
            _t: PhantomData,
        }
    }

    #[inline(always)]
    pub(crate) fn cast<U>(self) -> GlobalAddr<U> {
        GlobalAddr {
            addr: self.addr,
            _t: PhantomData,
        }
    }

    #[inline(always)]
    pub(crate) fn address(self) -> u64 {
        self.addr
    }

    /// `cvta.global.u64`.
    #[inline(always)]
    pub(crate) fn generic(self) -> *mut T {
        let p: u64;
        // SAFETY: computes an address; reads no memory.
        unsafe {
            core::arch::asm!("cvta.global.u64 {p}, {a};", p = out(reg64) p, a = in(reg64) self.addr,
                             options(nostack, nomem, pure))
        };
        p as *mut T
    }
}
