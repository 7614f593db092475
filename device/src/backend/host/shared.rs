//! Shared memory on the host: no `.shared` window, so a `Shared<T>` is an ordinary pointer and
//! a `shared!` variable an ordinary `static`.

use crate::shared::Shared;
use crate::shared_static::Symbol;

/// The pointer itself.
pub(crate) type Addr = *mut u8;

/// The field's name in `Shared`'s `Debug` output.
pub(crate) const DEBUG_FIELD: &str = "ptr";

#[inline(always)]
pub(crate) fn from_generic(p: *mut u8) -> Addr {
    p
}

/// `n` `T`s further on, wrapping as `pointer::wrapping_add`.
#[inline(always)]
pub(crate) fn add<T>(addr: Addr, n: usize) -> Addr {
    addr.cast::<T>().wrapping_add(n).cast()
}

#[inline(always)]
pub(crate) fn generic(addr: Addr) -> *mut u8 {
    addr
}

/// # Safety
/// `Shared::read`'s contract.
#[inline(always)]
pub(crate) unsafe fn read<T>(addr: Addr) -> T {
    // SAFETY: the caller's contract.
    unsafe { addr.cast::<T>().read() }
}

/// # Safety
/// `Shared::write`'s contract.
#[inline(always)]
pub(crate) unsafe fn write<T>(addr: Addr, v: T) {
    // SAFETY: the caller's contract.
    unsafe { addr.cast::<T>().write(v) }
}

/// A `shared!` variable's handle: a pointer to its storage.
#[inline(always)]
pub(crate) fn variable<K: Symbol>() -> Shared<K::Target> {
    // SAFETY: the host storage is a live static.
    unsafe { Shared::from_generic(K::host()) }
}

/// The host backend's storage of a `shared!` variable: uninitialized, as on the GPU.
#[doc(hidden)]
pub struct HostStorage<T>(core::cell::UnsafeCell<core::mem::MaybeUninit<T>>);

// SAFETY: a `static` must be `Sync`, and this one gives out only a raw pointer (`get`), as a
// `static mut` does: every access through it is `unsafe` (`SharedStatic::get`, a dereference)
// and the caller's to synchronize, as on the GPU, where every thread of a block shares the
// variable.
unsafe impl<T> Sync for HostStorage<T> {}

/// The address (the storage may be uninitialized: not read).
impl<T> core::fmt::Debug for HostStorage<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("HostStorage").field(&self.0.get()).finish()
    }
}

impl<T> HostStorage<T> {
    /// Uninitialized storage.
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        HostStorage(core::cell::UnsafeCell::new(core::mem::MaybeUninit::uninit()))
    }

    /// Its address.
    pub const fn get(&self) -> *mut T {
        self.0.get().cast()
    }
}
